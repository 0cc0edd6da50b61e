"""Outcomes a gateway posts to payhub (Adyen's webhooks), applied like a status read.

``POST /webhooks/gateways/{gateway}/{token}``: the token (made with the merchant's credentials
for a gateway that takes notifications) names the merchant and gateway; the gateway's adapter
checks the request with those credentials and reads its items (``ReadsNotifications``); each
item that answers an open question of one of the merchant's transactions (a pending capture,
refund or void, an ``Unknown`` charge) is recorded by the same path as a status read
(``record_gateway_word``), in its own unit of work with the transaction row locked. Anything
else (a bad signature, another merchant account, an unknown payment, a duplicate delivery or
an outcome already settled) changes nothing and is logged without the body or any secret.
"""

from __future__ import annotations

import json

import attrs
import structlog

from payhub.domain.errors import NotFound
from payhub.domain.payments import GatewayCredentials, GatewayNotification, notified_result
from payhub.ports import Gateway, ReadsNotifications
from payhub.services.deps import Deps
from payhub.services.payments import record_gateway_word

log = structlog.get_logger("payhub.gateway_notifications")


@attrs.frozen
class Receipt:
    """How many of the request's items changed a transaction, and how many were ignored."""

    applied: int
    ignored: int


class GatewayNotifications:
    def __init__(self, deps: Deps, gateways: dict[str, Gateway]) -> None:
        self._d = deps
        self._gateways = gateways

    def receive(
        self, gateway: str, token: str, body: bytes, authorization: str | None = None
    ) -> Receipt:
        """Read and apply one notification request. 404 for an unknown URL (no credentials
        with that token for that gateway); 401 when the gateway's basic authentication is
        configured and fails; 400 for a body that is not a notification."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            stored = uow.credentials.get_by_notification_token(token)
            merchant = uow.merchants.get(stored.merchant_id) if stored else None
        adapter = self._gateways.get(gateway)
        if (
            stored is None
            or merchant is None
            or stored.gateway != gateway
            or not isinstance(adapter, ReadsNotifications)
        ):
            raise NotFound("no gateway notification address here")
        opened = json.loads(self._d.secrets.open(stored.sealed))
        creds = GatewayCredentials(
            api_secret=opened["apiSecret"],
            sandbox=stored.environment.value == "Sandbox",
            fields=dict(opened.get("fields", {})),
        )
        notes = adapter.read_notifications(creds, body, authorization)
        applied = 0
        for note in notes:
            where = {"gateway": gateway, "merchant_id": merchant.id, "psp": note.reference}
            if note.problem is not None:
                log.warning("gateway_notification_ignored", reason=note.problem, **where)
                continue
            if self._apply(merchant.provider_id, merchant.id, gateway, note):
                applied += 1
        return Receipt(applied, len(notes) - applied)

    def _apply(
        self, provider_id: str, merchant_id: str, gateway: str, note: GatewayNotification
    ) -> bool:
        where = {"gateway": gateway, "merchant_id": merchant_id, "psp": note.reference}
        with self._d.store.unit_of_work() as uow:
            tx = uow.transactions.get_by_gateway_reference(
                merchant_id, gateway, note.payment_reference, for_update=True
            )
            if tx is None:
                log.warning("gateway_notification_ignored", reason="unknown payment", **where)
                return False
            result = notified_result(tx, uow.transactions.events(tx.id), note)
            if result is None:
                log.info(
                    "gateway_notification_ignored",
                    reason="answers nothing open (duplicate, settled or another move)",
                    transaction_id=tx.id,
                    status=tx.status.value,
                    **where,
                )
                return False
            record_gateway_word(uow, self._d, provider_id, tx, result)
            log.info(
                "gateway_notification_applied",
                transaction_id=tx.id,
                status=tx.status.value,
                **where,
            )
            return True
