"""An invoice as the API returns it: lines, payments and the pay link."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import msgspec

from payhub.domain.invoices import Invoice, InvoiceLine, InvoicePayment
from payhub.wire.addresses import AddressOut


class LineItemOut(msgspec.Struct, rename="camel"):
    description: str
    quantity: Decimal
    unit_price: Decimal
    is_taxable: bool
    amount: Decimal
    tax: Decimal
    product_id: str | None

    @classmethod
    def of(cls, line: InvoiceLine) -> LineItemOut:
        return cls(
            line.description,
            line.quantity,
            line.unit_price.amount,
            line.is_taxable,
            line.amount.amount,
            line.tax.amount,
            line.product_id,
        )


class InvoicePaymentOut(msgspec.Struct, rename="camel"):
    """`status` is the transaction's: `Captured`, `Submitted` (ACH) or `Authorized`. Settled
    outside payhub (`source` AccountingOnline, AccountingDesktop, Crm, Storefront): status
    `External`, no `transactionId` or `type`, and `externalSystem`/`externalReference`."""

    payment_id: str
    transaction_id: str | None
    amount: Decimal
    type: str | None
    status: str
    source: str
    created_at_utc: datetime
    external_system: str | None = None
    external_reference: str | None = None

    @classmethod
    def of(cls, p: InvoicePayment) -> InvoicePaymentOut:
        return cls(
            p.id,
            p.transaction_id,
            p.amount.amount,
            p.method_type.value if p.method_type else None,
            p.status,
            p.source.value,
            p.created_at,
            p.external_system,
            p.external_reference,
        )


class InvoiceOut(msgspec.Struct, rename="camel"):
    invoice_number: str
    invoice_id: str
    status: str
    customer_id: str | None
    currency: str
    description: str | None
    line_items: list[LineItemOut]
    tax_rate_id: str | None
    tax_rate_percent: Decimal
    subtotal: Decimal
    tax: Decimal
    total: Decimal
    amount_paid: Decimal
    amount_due: Decimal
    due_date: date | None
    gateway: str
    allowed_payment_methods: str
    partial_payment_mode: str
    required_deposit_amount: Decimal | None
    authorize_only: bool
    bill_to_address: AddressOut | None
    ship_to_address: AddressOut | None
    location_id: str | None
    payments: list[InvoicePaymentOut]
    payment_in_progress: bool
    pay_url: str
    created_at_utc: datetime
    updated_at_utc: datetime
    sent_at_utc: datetime | None
    paid_at_utc: datetime | None
    voided_at_utc: datetime | None

    @classmethod
    def of(cls, i: Invoice, link: str) -> InvoiceOut:
        return cls(
            invoice_number=i.number,
            invoice_id=i.id,
            status=i.status.value,
            customer_id=i.customer_id,
            currency=i.currency,
            description=i.description,
            line_items=[LineItemOut.of(x) for x in i.lines],
            tax_rate_id=i.tax_rate_id,
            tax_rate_percent=i.tax_percent,
            subtotal=i.subtotal.amount,
            tax=i.tax.amount,
            total=i.total.amount,
            amount_paid=i.amount_paid.amount,
            amount_due=i.amount_due.amount,
            due_date=i.due_date,
            gateway=i.gateway,
            allowed_payment_methods=i.allowed_methods.value,
            partial_payment_mode=i.partial_mode.value,
            required_deposit_amount=i.deposit.amount if i.deposit else None,
            authorize_only=i.authorize_only,
            bill_to_address=AddressOut.of(i.bill_to),
            ship_to_address=AddressOut.of(i.ship_to),
            location_id=i.location_id,
            payments=[InvoicePaymentOut.of(p) for p in i.payments],
            payment_in_progress=i.reserved_attempt is not None,
            pay_url=link,
            created_at_utc=i.created_at,
            updated_at_utc=i.updated_at,
            sent_at_utc=i.sent_at,
            paid_at_utc=i.paid_at,
            voided_at_utc=i.voided_at,
        )
