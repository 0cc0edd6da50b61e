"""``Idempotency-Key`` for money-moving POSTs, decided in the database.

The first request with a key claims it (a row committed before any work starts); a
concurrent request with the same key finds the claim and gets 409; a later retry with the
same body gets the stored response (``Idempotent-Replayed: true``) without the gateway being
called again; the same key with a different body is 422. Keys are scoped to the provider
and kept 24 hours. Every outcome is stored except a crash (500) and a gateway timeout (504):
those release the key so a retry can settle the charge under the same gateway key. A claim
left unfinished for ``ABANDONED_AFTER`` (the process died mid-request) is taken over by a
retry of the same request, which is safe because the services below are idempotent by the
gateway key derived from the same Idempotency-Key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import msgspec
from litestar import Request, Response

from payhub.domain.errors import Conflict, PayHubError, ValidationError
from payhub.hub import PayHub
from payhub.ports import StoredResponse
from payhub.services.auth import Caller
from payhub_server.problems import PROBLEM_JSON, from_domain

HEADER = "idempotency-key"
KEY_MAX = 255
TTL = timedelta(hours=24)
# Far longer than any request can take (gateway calls time out in well under a minute).
ABANDONED_AFTER = timedelta(minutes=10)
_NOT_STORED = {500, 504}


class IdempotencyKeyReused(PayHubError):
    status = 422
    code = "idempotency-key-reused"
    title = "Idempotency-Key used for a different request"


def _fingerprint(request: Request[Any, Any, Any], data: Any) -> str:
    parts = [
        request.method,
        request.url.path,
        request.headers.get("x-merchant-reference", ""),
        msgspec.json.encode(data).decode() if data is not None else "",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def run_idempotent(
    hub: PayHub,
    caller: Caller,
    request: Request[Any, Any, Any],
    data: Any,
    work: Callable[[], Response[Any]],
) -> Response[Any]:
    """Run ``work`` at most once per (provider, Idempotency-Key)."""
    key = request.headers.get(HEADER)
    if key is None:
        return work()
    key = key.strip()
    if not 1 <= len(key) <= KEY_MAX or not key.isprintable():
        raise ValidationError.for_field(
            "Idempotency-Key", f"must be 1 to {KEY_MAX} printable characters"
        )
    scope = f"{caller.provider_id}"
    fingerprint = _fingerprint(request, data)
    now = hub.deps.clock.now()
    with hub.store.unit_of_work() as uow:
        claim = uow.idempotency.claim(
            scope, key, fingerprint, now, now + TTL, abandoned_before=now - ABANDONED_AFTER
        )
    if claim.state == "mismatch":
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used with a different request; use a new key"
        )
    if claim.state == "in_flight":
        raise Conflict("a request with this Idempotency-Key is still being processed; retry later")
    if claim.state == "done" and claim.response is not None:
        stored = claim.response
        return Response(
            stored.body,
            status_code=stored.status,
            media_type=PROBLEM_JSON if stored.status >= 400 else "application/json",
            headers={"Idempotent-Replayed": "true"},
        )
    try:
        response = work()
    except PayHubError as error:
        response = from_domain(request, error)
    except BaseException:
        with hub.store.unit_of_work() as uow:
            uow.idempotency.release(scope, key)
        raise
    with hub.store.unit_of_work() as uow:
        if response.status_code in _NOT_STORED:
            uow.idempotency.release(scope, key)
        else:
            body = response.render(response.content, response.media_type or "application/json")
            uow.idempotency.finish(scope, key, StoredResponse(response.status_code, body))
    return response
