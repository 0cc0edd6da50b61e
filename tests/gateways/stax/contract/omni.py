"""Stax's request contract, taken from its own Python client (``fattmerchant``).

``sdk_talking_to`` replaces the client's HTTP calls with a handler (a fake, or a recorder);
``reference`` runs each client call once and keeps the fields it sends per endpoint; ``check``
holds one of the adapter's requests to them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from types import SimpleNamespace
from typing import Any

import httpx

from tests.gateways import contracts


def _import_client() -> Any:
    """Import the client without the ``logging.basicConfig`` it runs at import time."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import fattmerchant.client
        import fattmerchant.request
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return fattmerchant


fattmerchant = _import_client()
FMClient = fattmerchant.client.FMClient

Handler = Callable[[httpx.Request], httpx.Response]
_REFERENCE_ID = "ref0000-contract"

# Fields Stax documents outside the 2021 client: POST charge's idempotency_id (idempotency guide).
DOCUMENTED_EXTRAS: dict[str, frozenset[str]] = {"POST /charge": frozenset({"idempotency_id"})}


class ContractViolation(contracts.ContractViolation):
    """A request Stax's own client would never send."""


def endpoint(request: httpx.Request) -> str:
    """``METHOD /path`` with ids replaced by ``{id}`` (``POST /transaction/{id}/refund``)."""
    parts = request.url.path.strip("/").split("/")
    shape = [p if i % 2 == 0 else "{id}" for i, p in enumerate(parts)]
    return f"{request.method} /" + "/".join(shape)


@contextmanager
def sdk_talking_to(
    handler: Handler | None, api_key: str = "contract-key"
) -> Iterator[tuple[Any, list[httpx.Request]]]:
    """The client with its ``requests`` calls handed to ``handler`` (or answered ``{}``)."""
    sent: list[httpx.Request] = []

    def call(method: str) -> Callable[..., Any]:
        def send(url: str, headers: dict[str, str] | None = None, data: Any = None) -> Any:
            content = data.encode() if isinstance(data, str) else data
            request = httpx.Request(method.upper(), url, headers=headers, content=content)
            sent.append(request)
            if handler is None:
                return SimpleNamespace(status_code=200, text=json.dumps({"id": _REFERENCE_ID}))
            answer = handler(request)
            return SimpleNamespace(status_code=answer.status_code, text=answer.text)

        return send

    original = fattmerchant.request.requests
    fattmerchant.request.requests = SimpleNamespace(
        get=call("get"), post=call("post"), put=call("put"), delete=call("delete")
    )
    try:
        yield FMClient(api_key), sent
    finally:
        fattmerchant.request.requests = original


@cache
def reference() -> dict[str, frozenset[str]]:
    """Endpoint -> the body fields the client sends there (empty for reads)."""
    with sdk_talking_to(None) as (client, sent):
        client.charges.create(id="pm", meta={"tax": 0}, total=1.0, pre_auth=True)
        client.transactions.get(_REFERENCE_ID)
        client.transactions.refund(_REFERENCE_ID, 1.0)
        client.paymentmethods.get(_REFERENCE_ID)
        client.customers.get(_REFERENCE_ID)
    return {endpoint(r): frozenset(json.loads(r.content or b"{}")) for r in sent}


def required() -> dict[str, frozenset[str]]:
    """Fields the client refuses to send a request without (its own argument checks)."""
    return {
        "POST /charge": frozenset({"payment_method_id", "meta", "total"}),
        "POST /transaction/{id}/refund": frozenset({"total"}),
    }


def check(request: httpx.Request) -> None:
    """Raise ``ContractViolation`` if ``request`` goes to an endpoint the client knows with
    fields it would not send, or without the fields it always sends."""
    name = endpoint(request)
    known = reference().get(name)
    if known is None:
        return  # an endpoint the client has no call for: see SOURCE
    body = json.loads(request.content or b"{}") if request.content else {}
    fields = set(body) if isinstance(body, dict) else set()
    unknown = fields - known - DOCUMENTED_EXTRAS.get(name, frozenset())
    if unknown:
        raise ContractViolation(f"{name}: {sorted(unknown)[0]} is not a field Stax's client sends")
    missing = required().get(name, frozenset()) - fields
    if missing:
        raise ContractViolation(f"{name}: {sorted(missing)[0]} is required by Stax's client")
