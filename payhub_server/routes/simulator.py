"""The simulator's client-side script (its folder's fields.js), the stand-in for a gateway's
hosted fields."""

from __future__ import annotations

from functools import cache

from litestar import Response, get

from payhub.adapters.gateways.simulator import FOLDER
from payhub.adapters.gateways.simulator.page import MODULE
from payhub_server.deps import PUBLIC


@cache
def _script() -> bytes:
    script = FOLDER.fields_script
    assert script is not None  # the simulator's folder has a pay-page driver
    return script.read_bytes()


@get(
    MODULE,
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
