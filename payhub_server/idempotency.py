"""``Idempotency-Key`` for money-moving POSTs whose services do not take the key themselves.

The rules, the digest stored instead of the key and the lease that lets a retry take over
a dead process's claim live in ``payhub.services.idempotency``; this module applies them
around a route's work, storing its HTTP answer: the first request claims the key (a row
committed before any work starts); a concurrent request with the same key gets 409; a later
retry with the same body gets the stored response (``Idempotent-Replayed: true``) without
the gateway being called again; the same key with a different body is 422. Every outcome is
stored except a crash (500) and a gateway timeout (504): those release the key so a retry
can settle the charge under the same gateway key. Charges, captures, refunds, voids and
run-now take the key in the service (``Payments.charge_once`` … ``ScheduledPayments.
run_now_once``), in the same transactions as the work itself; what is left here is schedule
create, invoice create and saving a payment method.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Request, Response

from payhub.domain.errors import PayHubError
from payhub.hub import PayHub
from payhub.ports import StoredResponse
from payhub.services import idempotency
from payhub.services.auth import Caller
from payhub.services.idempotency import IdempotencyKeyReused, IdempotentCall
from payhub_server.problems import PROBLEM_JSON, from_domain

__all__ = ["HEADER", "IdempotencyKeyReused", "call_for", "replayed", "run_idempotent", "stored"]

HEADER = "idempotency-key"
_NOT_STORED = {500, 504}


def fingerprint(request: Request[Any, Any, Any], data: Any) -> str:
    parts = [
        request.method,
        request.url.path,
        request.headers.get("x-merchant-reference", ""),
        msgspec.json.encode(data).decode() if data is not None else "",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def call_for(caller: Caller, request: Request[Any, Any, Any], data: Any) -> IdempotentCall | None:
    """The request's key (checked: 400 when malformed) and fingerprint, or ``None``."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    return IdempotentCall(
        caller.provider_id, idempotency.check_key(key), fingerprint(request, data)
    )


def replayed(answer: StoredResponse) -> Response[Any]:
    return Response(
        answer.body,
        status_code=answer.status,
        media_type=PROBLEM_JSON if answer.status >= 400 else "application/json",
        headers={"Idempotent-Replayed": "true"},
    )


def stored(response: Response[Any]) -> StoredResponse | None:
    """What a replay will answer, or ``None`` for answers that release the key."""
    if response.status_code in _NOT_STORED:
        return None
    body = response.render(response.content, response.media_type or "application/json")
    return StoredResponse(response.status_code, body)


def run_idempotent(
    hub: PayHub,
    caller: Caller,
    request: Request[Any, Any, Any],
    data: Any,
    work: Callable[[], Response[Any]],
) -> Response[Any]:
    """Run ``work`` at most once per (provider, Idempotency-Key)."""
    call = call_for(caller, request, data)
    if call is None:
        return work()
    with hub.store.unit_of_work() as uow:
        earlier = idempotency.claim(uow, call, hub.deps.clock.now())
    if earlier is not None:
        return replayed(earlier)
    with idempotency.lease_keeper(hub.store, hub.deps.clock).hold(call):
        try:
            response = work()
        except PayHubError as error:
            response = from_domain(request, error)
        except BaseException:
            with hub.store.unit_of_work() as uow:
                idempotency.release(uow, call)
            raise
        answer = stored(response)
        with hub.store.unit_of_work() as uow:
            if answer is None:
                idempotency.release(uow, call)
            else:
                idempotency.finish(uow, call, answer)
    return response
