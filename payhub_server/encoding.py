"""JSON responses with money as JSON numbers.

msgspec writes ``Decimal`` as a string by default; payhub's wire format is a decimal
number (``"value": 10.50``), written from the ``Decimal`` digits, never via float.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response
from litestar.serialization import default_serializer

_encoder = msgspec.json.Encoder(enc_hook=default_serializer, decimal_format="number")


def encode(value: Any) -> bytes:
    return _encoder.encode(value)


class JsonResponse(Response[Any]):
    def render(self, content: Any, media_type: str, enc_hook: Any = None) -> bytes:
        if (
            media_type.startswith("application/")
            and "json" in media_type
            and not isinstance(content, bytes | str)
        ):
            return encode(content)
        return super().render(content, media_type, enc_hook)
