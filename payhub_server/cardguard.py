"""Refuse raw card and bank numbers before anything else sees the request.

An ASGI wrapper reads the body of every POST, PUT and PATCH (up to the size limit), the
query string and the client's headers (``Idempotency-Key``, ``X-Request-Id``, any other but
the tracing and caching ids of ``UNSCANNED_HEADERS``), and answers 400 if they hold a
Luhn-valid card number or a raw card or bank field. It runs before routing, storage and
logging, so such a number never reaches a log line or the database; the request log
records only the method, path and status, and never adopts a card number as request id.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any
from urllib.parse import unquote_plus

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from payhub.domain.cardnumbers import contains_card_number, forbidden_fields
from payhub_server.encoding import encode

MAX_BODY = 1024 * 1024
# Gateway credentials carry gateway-issued identifiers (merchant and terminal ids, PINs,
# secrets) that may happen to be 13-19 digit Luhn-valid numbers. They are sealed and never
# shown, and they are not card data, so the digit-run check skips these top-level fields of
# that one route; field names that can only mean card or bank data are still refused there.
_CREDENTIALS = re.compile(r"^/api/merchant-accounts/[^/]+/credentials/[^/]+/?$")
_CREDENTIAL_VALUES = frozenset({"apiSecret", "additionalFields"})
# A gateway's notifications name its payments by its own references, and Adyen's older
# pspReferences are 16 digits: one in ten passes the Luhn check, and refusing it would make
# Adyen deliver the same notification again forever. The gateway sends no card numbers there
# (the notification models have none); card field names are still refused.
_NOTIFICATIONS = re.compile(r"^/webhooks/gateways/[^/]+/[^/]+/?$")
_NOTIFICATION_VALUES = frozenset({"notificationItems"})
# QuickBooks Online company ids (``realmId``) are 13-19 digit numbers, Luhn-valid by chance
# about one time in ten. On the two routes that receive them from Intuit (its sign-in's
# redirect back to the portal, its signed change notifications) those values, digits only,
# are left out of the digit-run check; everything else there is scanned as usual.
_INTUIT_QUERY = re.compile(r"^/portal/integrations/accounting-online/callback/?$")
_INTUIT_BODY = re.compile(r"^/webhooks/intuit/?$")
_REALM_IN_QUERY = re.compile(r"(^|&)realmId=\d{1,20}(?=&|$)")
_REALM_IN_BODY = re.compile(rb'"(realmId|intuitaccountid)"\s*:\s*"\d{1,20}"')
# Headers made by tracing, caching and browsers, never read, stored or logged by payhub:
# their hex and decimal ids (a 64-bit span id is up to 20 digits) would pass the Luhn check
# by chance on about one request in two hundred. Every other header is scanned.
UNSCANNED_HEADERS = frozenset(
    {
        "traceparent",
        "tracestate",
        "x-cloud-trace-context",
        "x-amzn-trace-id",
        "x-b3-traceid",
        "x-b3-spanid",
        "x-b3-parentspanid",
        "b3",
        "sentry-trace",
        "if-none-match",
        "if-match",
        "cookie",
    }
)
_HEADER_NAMES = {
    "idempotency-key": "Idempotency-Key",
    "x-request-id": "X-Request-Id",
    "x-merchant-reference": "X-Merchant-Reference",
    "x-api-key": "X-Api-Key",
}
_HOSTED_FIELDS = (
    "collect card and bank details with the gateway's hosted fields (GET /api/gateways lists"
    " them; the simulator's are at /simulator/hosted-fields.js) and send payhub the token"
)


async def _reply(
    scope: Scope, send: Send, status: int, code: str, title: str, detail: str, **extra: Any
) -> None:
    problem: dict[str, Any] = {"type": f"/problems/{code}", "title": title, "status": status}
    problem |= {"detail": detail, "instance": scope.get("path", "")}
    request_id = scope.get("state", {}).get("request_id")
    if request_id:
        problem["requestId"] = request_id
    body = encode(problem | extra)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class CardGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = unquote_plus(scope.get("query_string", b"").decode("latin-1"))
        if _INTUIT_QUERY.match(scope.get("path", "")):
            query = _REALM_IN_QUERY.sub(r"\1", query)
        if contains_card_number(query):
            await _refuse(scope, send, ["query"])
            return
        headers = card_headers(scope)
        if headers:
            await _refuse(scope, send, headers)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await _reply(
                    scope,
                    send,
                    413,
                    "payload-too-large",
                    "Request body too large",
                    f"request bodies are limited to {MAX_BODY} bytes",
                )
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        path = scope.get("path", "")
        exempt: frozenset[str] = frozenset()
        if _CREDENTIALS.match(path):
            exempt = _CREDENTIAL_VALUES
        elif _NOTIFICATIONS.match(path):
            exempt = _NOTIFICATION_VALUES
        scanned = body
        if _INTUIT_BODY.match(path):
            scanned = _REALM_IN_BODY.sub(rb'"\1":""', body)
        fields = _scan(scanned, exempt)
        if fields:
            await _refuse(scope, send, fields)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def card_headers(scope: Scope) -> list[str]:
    """The client's headers that carry a card number (``Idempotency-Key``, ``X-Request-Id``,
    any other), except the tracing and caching ids of ``UNSCANNED_HEADERS``."""
    found = []
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        if name in UNSCANNED_HEADERS:
            continue
        if contains_card_number(unquote_plus(raw_value.decode("latin-1"))):
            found.append(_HEADER_NAMES.get(name, name))
    return found


def _scan(body: bytes, exempt: frozenset[str] = frozenset()) -> list[str]:
    """Forbidden field names anywhere, then any card-number-like digit run outside the
    ``exempt`` top-level fields of a JSON object."""
    text = body.decode("utf-8", errors="replace")
    found: list[str] = []
    # A body too deep for the parser is still scanned as text; the decoding hook refuses it.
    with contextlib.suppress(ValueError, RecursionError):
        document = json.loads(text)
        found = list(forbidden_fields(document))
        if exempt and isinstance(document, dict):
            text = json.dumps({k: v for k, v in document.items() if k not in exempt})
    if not found and contains_card_number(unquote_plus(text)):
        found = ["body"]
    return found


async def _refuse(scope: Scope, send: Send, fields: list[str]) -> None:
    await _reply(
        scope,
        send,
        400,
        "raw-card-data",
        "Raw card or bank details are not accepted",
        "payhub never accepts card numbers, security codes or bank routing and account"
        f" numbers: {_HOSTED_FIELDS}",
        errors=[{"field": f, "message": "must not carry raw card or bank details"} for f in fields],
    )
