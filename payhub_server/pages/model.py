"""What the page templates render: formatted, display-ready values and nothing else.

The presenter (``presenters.py``) builds these from the invoice core's pay-page view, so the
templates never format money or decide a rule; the server enforces every rule again on post.
"""

from __future__ import annotations

from typing import Any

import attrs

from payhub_server.pages.drivers import VendorHosts


@attrs.frozen
class LineRow:
    description: str
    quantity: str
    unit_price: str
    amount: str
    taxable: bool


@attrs.frozen
class PaymentRow:
    date: str  # in the merchant's time zone
    method: str
    status: str
    amount: str
    submitted: bool = False  # a bank debit on its way (takes business days)
    receipt_number: str = ""  # INV-000042-R1: the invoice number and the payment's position
    reference: str = ""  # the gateway's reference for the charge (receipts only)


@attrs.frozen
class Choice:
    """One amount the payer may pick (a deposit or the full balance)."""

    key: str  # "deposit" | "balance"
    label: str
    amount: str  # plain decimal, e.g. "25.00" (what the form posts)
    display: str  # "$25.00"


@attrs.frozen
class PayOptions:
    """What may be paid now: fixed choices, or any amount in [minimum, maximum]."""

    choices: tuple[Choice, ...]
    minimum: str | None = None  # plain decimals; set when the payer types the amount
    maximum: str | None = None
    maximum_display: str | None = None

    @property
    def free_amount(self) -> bool:
        return self.maximum is not None


@attrs.frozen
class HostedFields:
    """How the browser collects the card or bank account: the gateway's own script."""

    gateway: str  # payhub gateway name, e.g. "simulator"
    name: str  # e.g. "payhub simulator hosted fields"
    script_url: str | None  # the driver module; None: the fields cannot be rendered here
    card: bool
    bank: bool
    vendor: VendorHosts = attrs.field(factory=VendorHosts)  # hosts the page CSP opens
    config: dict[str, Any] = attrs.field(factory=dict)  # public values for the driver


def masked_phone(last4: str | None) -> str | None:
    """``2671`` -> ``•••-•••-2671``: the payer recognises it; the link's holder learns little."""
    return f"•••-•••-{last4}" if last4 else None


@attrs.frozen
class PageModel:
    pay_token: str
    merchant_name: str
    sandbox: bool
    invoice_number: str
    status: str  # Draft | Sent | Paid | Void
    currency: str
    due_date: str | None
    lines: tuple[LineRow, ...]
    subtotal: str
    tax_label: str
    tax: str
    total: str
    amount_paid: str
    amount_due: str
    amount_due_plain: str
    bill_to: tuple[str, ...]
    ship_to: tuple[str, ...]
    payments: tuple[PaymentRow, ...]
    options: PayOptions | None  # None: nothing may be paid now (Paid, Void)
    fields: HostedFields
    authorize_only: bool
    sms_offer: bool
    sms_recorded: bool
    in_progress: bool  # another attempt holds the invoice right now
    allowed_origins: tuple[str, ...]
    sms_phone_last4: str | None = None  # the customer's number, never in full on the page
    today: str = ""  # the date in the merchant's time zone (the ACH authorization's date)
    merchant_contact: tuple[str, ...] = ()  # the invoice's location, else the merchant profile
    merchant_logo: str | None = None  # the merchant profile's logo (a data: URI)
    # The bank debit authorization's words around the amount the payer picks
    # (payhub.domain.debit_authorizations: the same words are recorded with the payment).
    debit_words: tuple[str, str] = ("", "")

    @property
    def sms_phone_masked(self) -> str | None:
        return masked_phone(self.sms_phone_last4)

    @property
    def verb(self) -> str:
        """Authorize-only invoices reserve funds; the page must not claim to take them."""
        return "Reserve" if self.authorize_only else "Pay"

    @property
    def status_label(self) -> str:
        """What the payer reads: "Draft" and "Sent" are the merchant's words, not theirs (the
        API and the embed messages keep the real status)."""
        if self.status in ("Draft", "Sent"):
            return "Partly paid" if self.payments else "Open"
        if self.status == "Void":
            return "Cancelled"
        return "Reserved" if self.authorize_only and self.status == "Paid" else self.status

    @property
    def payable(self) -> bool:
        return self.options is not None and self.status not in ("Paid", "Void")

    @property
    def state_message(self) -> str:
        if self.status == "Paid":
            if self.authorize_only:
                return "This invoice is settled: the full amount is reserved."
            return "This invoice is paid in full. Thank you."
        if self.status == "Void":
            if self.payments:
                return (
                    f"This invoice has been cancelled by the merchant. {self.amount_paid} was"
                    " paid on it before it was cancelled (see the payments below); contact"
                    f" {self.merchant_name} about that amount. There is nothing more to pay."
                )
            return "This invoice has been cancelled by the merchant. There is nothing to pay."
        return "This invoice cannot be paid right now."
