"""The one place errors become HTTP: RFC 9457 ``application/problem+json``.

Domain errors carry their status; framework errors (unknown path, wrong method,
undecodable body) are translated to the same shape. Nothing internal leaks: a bug
is a 500 with a request id to quote, and the traceback goes to the log only.
"""

from __future__ import annotations

import re
from typing import Any

import structlog
from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
    ValidationException,
)

from payhub.domain.errors import PayHubError, RateLimited, Unauthenticated, ValidationError
from payhub.domain.payments import GatewayError
from payhub_server.decoding import BodyRefused
from payhub_server.encoding import encode

PROBLEM_JSON = "application/problem+json"
log = structlog.get_logger("payhub.http")

PROBLEM_TYPES: dict[str, str] = {
    "validation-error": "The request is not valid: a field is missing, malformed or breaks a rule."
    " `errors` lists each field at fault.",
    "unauthenticated": "No API key, or one that is unknown or revoked. Send X-Api-Key.",
    "forbidden": "The key is valid but may not do this (a merchant key outside its merchant,"
    " or a provider-only operation).",
    "not-found": "Nothing here: the path is unknown, or the object does not exist for this caller.",
    "method-not-allowed": "The path exists but not with this HTTP method.",
    "conflict": "The request clashes with the current state (a duplicate, or an illegal move).",
    "rate-limited": "A limit is reached. Retry after the number of seconds in Retry-After.",
    "unavailable": "The capability is not configured in this environment.",
    "payment-declined": "The gateway declined the payment; `declineCode` says why.",
    "payment-method-invalid": "The token is unknown, used or expired: collect the payment method"
    " again with the gateway's hosted fields.",
    "gateway-credentials-rejected": "The gateway refused the merchant's credentials.",
    "gateway-unavailable": "The gateway could not be reached or failed; retrying with the same"
    " Idempotency-Key is safe.",
    "gateway-timeout": "The gateway did not answer in time. The transaction is Unknown; retry"
    " with the same Idempotency-Key to settle it.",
    "gateway-error": "The gateway answered in a way payhub could not use.",
    "idempotency-key-reused": "The Idempotency-Key was already used with a different request.",
    "raw-card-data": "The request carried a card number, security code or bank number. Use the"
    " gateway's hosted fields and send the token.",
    "payload-too-large": "The request body is over the size limit.",
    "unsupported-media-type": "The operation takes a JSON body: send Content-Type"
    " application/json.",
    "internal-error": "payhub failed. Quote the requestId when reporting it.",
}


def problem(
    status: int,
    code: str,
    title: str,
    detail: str,
    request: Request[Any, Any, Any] | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response[bytes]:
    body: dict[str, Any] = {
        "type": f"/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail,
    }
    if request is not None:
        body["instance"] = request.url.path
        request_id = request.scope.get("state", {}).get("request_id")
        if request_id:
            body["requestId"] = request_id
    body.update(extra)
    return Response(encode(body), status_code=status, media_type=PROBLEM_JSON, headers=headers)


def from_domain(request: Request[Any, Any, Any], exc: PayHubError) -> Response[bytes]:
    extra: dict[str, Any] = {}
    headers: dict[str, str] = {}
    if isinstance(exc, ValidationError):
        extra["errors"] = [{"field": f.field, "message": f.message} for f in exc.fields]
    if isinstance(exc, RateLimited):
        headers["Retry-After"] = str(exc.retry_after)
        extra["retryAfter"] = exc.retry_after
    if isinstance(exc, GatewayError):
        extra["gateway"] = exc.gateway
        extra["retrySafe"] = exc.retry_safe
        for name, value in (
            ("declineCode", exc.decline_code),
            ("gatewayMessage", exc.gateway_message),
            ("gatewayRequestId", exc.gateway_request_id),
            ("transactionId", exc.transaction_id),
        ):
            if value:
                extra[name] = value
    if isinstance(exc, Unauthenticated):
        headers["WWW-Authenticate"] = 'ApiKey header="X-Api-Key"'
    return problem(exc.status, exc.code, exc.title, exc.detail, request, headers, **extra)


_NAMED = re.compile(r"field `([^`]+)`")
_AT = re.compile(r"at `\$\.?([^`]*)`")


def _field_of(item: dict[str, Any]) -> str:
    """The body field a decoding error is about, from msgspec's message.

    msgspec says "Object missing required field `x` - at `$.amount`" or
    "Expected `str`, got `int` - at `$.externalReference`".
    """
    message = str(item.get("message", ""))
    at = _AT.search(message)
    named = _NAMED.search(message)
    parts = [p for p in ((at.group(1) if at else ""), (named.group(1) if named else "")) if p]
    if parts:
        return ".".join(parts)
    key = str(item.get("key") or "")
    return key if key and key != "data" else "body"


def _message_of(item: dict[str, Any]) -> str:
    message = str(item.get("message", "is not valid"))
    if item.get("key") == "data" and message.strip("'") == "data":
        return "a JSON request body is required"
    return message


_HTTP_CODES = {
    400: ("validation-error", "Your request is not valid"),
    413: ("payload-too-large", "Request body too large"),
    415: ("unsupported-media-type", "Send JSON"),
}


def from_framework(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    path = request.url.path
    if (
        isinstance(exc, HTTPException)
        and exc.status_code < 500
        and (path == "/api" or path.startswith("/api/"))
    ):
        # Authentication comes before routing and body parsing for /api: an unknown
        # path, a wrong method or an undecodable body without a valid key is 401, so
        # probing reveals nothing.
        from payhub_server.ratelimit import authenticate_sync

        try:
            authenticate_sync(request)
        except (Unauthenticated, RateLimited) as e:
            return from_domain(request, e)
    if isinstance(exc, BodyRefused):
        errors = [{"field": f.field, "message": f.message} for f in exc.fields]
        extra: dict[str, Any] = {"errors": errors} if errors else {}
        return problem(exc.status_code, exc.code, exc.title, str(exc.detail), request, **extra)
    if isinstance(exc, ValidationException):
        items = exc.extra if isinstance(exc.extra, list) else []
        fields = [
            {"field": _field_of(i), "message": _message_of(i)} for i in items if isinstance(i, dict)
        ]
        detail = str(exc.detail or "the request is not valid")
        if fields:
            detail = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
        return problem(
            400, "validation-error", "Your request is not valid", detail, request, errors=fields
        )
    if isinstance(exc, NotFoundException):
        return problem(404, "not-found", "Not found", f"no route for {request.url.path}", request)
    if isinstance(exc, MethodNotAllowedException):
        return problem(
            405,
            "method-not-allowed",
            "Method not allowed",
            f"{request.method} is not allowed on {request.url.path}",
            request,
            headers=dict(exc.headers or {}),
        )
    if isinstance(exc, HTTPException) and exc.status_code < 500:
        detail = str(exc.detail)
        if detail.startswith("JSON is malformed"):
            detail = "the request body is not valid JSON (" + detail.split(":", 1)[-1].strip() + ")"
        code, title = _HTTP_CODES.get(exc.status_code, ("http-error", "Request refused"))
        return problem(exc.status_code, code, title, detail, request)
    log.exception("unhandled error", path=request.url.path, method=request.method)
    return problem(
        500,
        "internal-error",
        "Internal error",
        "payhub could not complete the request; quote the requestId when reporting it",
        request,
    )
