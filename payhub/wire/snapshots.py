"""The ``Snapshots`` port over the API's own presenters: events carry what the API returns.

Each snapshot is the response struct encoded as the API encodes it (money as exact decimal
numbers) and decoded back to JSON values with money as ``Decimal``, so the same value is
stored, listed by ``GET /api/events`` and sent in webhooks, and equals the API's response
for the object at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import msgspec

from payhub.domain.customers import Customer
from payhub.domain.invoices import Invoice
from payhub.domain.links import ClickTotal, LinkStatus, ShortLink
from payhub.domain.payments import Transaction, TransactionEvent
from payhub.domain.schedules import ScheduledPayment, ScheduleRequest, ScheduleRun
from payhub.services.links import LinkView
from payhub.wire.customers import CustomerOut
from payhub.wire.invoices import InvoiceOut
from payhub.wire.links import ShortLinkOut
from payhub.wire.payments import TransactionOut
from payhub.wire.schedules import ScheduledPaymentOut, ScheduleRequestOut

_encoder = msgspec.json.Encoder(decimal_format="number")
_decoder = msgspec.json.Decoder(float_hook=Decimal)


def json_value(struct: msgspec.Struct) -> dict[str, Any]:
    """The struct as the API's JSON, decoded to plain values (money as ``Decimal``)."""
    value = _decoder.decode(_encoder.encode(struct))
    assert isinstance(value, dict)
    return value


class WireSnapshots:
    def payment(self, tx: Transaction, ledger: Sequence[TransactionEvent]) -> dict[str, Any]:
        return json_value(TransactionOut.of(tx, list(ledger)))

    def invoice(self, invoice: Invoice, pay_url: str) -> dict[str, Any]:
        return json_value(InvoiceOut.of(invoice, pay_url))

    def customer(self, customer: Customer) -> dict[str, Any]:
        return json_value(CustomerOut.of(customer))

    def scheduled_payment(
        self, schedule: ScheduledPayment, runs: Sequence[ScheduleRun]
    ) -> dict[str, Any]:
        return json_value(ScheduledPaymentOut.of(schedule, list(runs)))

    def schedule_request(self, request: ScheduleRequest, approval_url: str) -> dict[str, Any]:
        return json_value(ScheduleRequestOut.of(request, approval_url))

    def short_link(
        self, link: ShortLink, short_url: str | None, status: LinkStatus, clicks: ClickTotal
    ) -> dict[str, Any]:
        return json_value(ShortLinkOut.of(LinkView(link, short_url, status, clicks)))
