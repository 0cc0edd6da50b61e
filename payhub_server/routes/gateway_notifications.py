"""Outcomes gateways post to payhub: ``POST /webhooks/gateways/{gateway}/{token}`` (Adyen).

Public (the gateway has no payhub key): the token in the path names the merchant's
credentials, the gateway's adapter checks the request with them (Adyen: each item's HMAC
signature, basic authentication when configured). See docs/gateways.md, "Adyen's webhooks".
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from litestar import Request, Response, post

from payhub_server.deps import PUBLIC, Hub

ACCEPTED = b"[accepted]"  # what Adyen needs back, or it delivers the same items again


@post(
    "/webhooks/gateways/{gateway:str}/{token:str}",
    opt=PUBLIC,
    tags=["Payments"],
    summary="Gateway notifications (Adyen webhooks)",
    status_code=200,
    security=[],
)
async def gateway_notification(
    gateway: str, token: str, request: Request[Any, Any, Any], hub: Hub
) -> Response[bytes]:
    """Set this URL (given as `notificationUrl` by `PUT …/credentials/adyen`) as the Adyen
    webhook's URL. Each item whose HMAC signature matches the account's `hmacKey` and that
    settles one of the merchant's pending captures, refunds or voids (or an `Unknown` charge)
    is recorded as a status read would; anything else changes nothing. Answered `[accepted]`
    (Adyen retries any other answer, and a retried item is not applied twice); 401 when the
    basic authentication set for the webhook fails, 404 for an unknown address."""
    body = await request.body()
    authorization = request.headers.get("authorization")
    await anyio.to_thread.run_sync(
        hub.gateway_notifications.receive, gateway, token, body, authorization
    )
    return Response(ACCEPTED, media_type="text/plain", status_code=200)
