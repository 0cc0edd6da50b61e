"""The simulator's client-side script, the stand-in for a gateway's hosted fields."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from litestar import Response, get

from payhub_server.deps import PUBLIC

_SCRIPT = Path(__file__).resolve().parent.parent / "static" / "simulator-hosted-fields.js"


@cache
def _script() -> bytes:
    return _SCRIPT.read_bytes()


@get(
    "/simulator/hosted-fields.js",
    opt=PUBLIC,
    sync_to_thread=False,
    tags=["Simulator"],
    summary="The simulator's hosted-fields script (sandbox)",
    media_type="application/javascript",
)
def hosted_fields_script() -> Response[bytes]:
    """Turns simulator test cards and bank accounts into tokens in the browser."""
    return Response(
        _script(),
        media_type="application/javascript",
        headers={"Cache-Control": "public, max-age=3600"},
    )


__all__ = ["hosted_fields_script"]
