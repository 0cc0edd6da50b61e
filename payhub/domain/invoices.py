"""Invoices: lines, tax, totals, the state table and the partial-payment rules (pure).

Money (spec: Invoice, Tax rate):

- A line's amount is ``quantity x unitPrice`` rounded half-up to the currency's minor unit;
  its tax is ``amount x percent / 100``, also rounded half-up, and only on taxable lines
  (``isTaxable`` defaults to true). ``subtotal`` is the sum of line amounts, ``tax`` the sum
  of line taxes, ``total = subtotal + tax``; ``amountDue = total - amountPaid`` never < 0.
- Every field is fixed at creation; only the status, the payments and the in-flight
  reservation change afterwards.

States (spec: States, Invoice)::

    Draft --send--> Sent --send--> Sent (re-sends the pay link)
    Draft/Sent --payment leaving nothing due--> Paid
    Draft/Sent/Void --void--> Void (a repeated void keeps the first time)
    Paid --void--> refused (409); Paid/Void --send or pay--> refused (409)
    Draft/Sent --settled outside payhub (accounting, CRM)--> Paid
    (new) --paid store order imported--> Paid (created, then settled by the store)

Partial payments (spec: Invoice rule 3):

- ``Disabled``: one payment of the full total.
- ``FixedDeposit``: the first payment is exactly ``requiredDepositAmount`` or the full
  balance, nothing in between; after it, the rest in one payment.
- ``CustomerChoice``: any amount from one minor unit up to the balance, repeatedly.

Authorize-only: the payment is an authorization (funds reserved, captured later through
the payments API). It counts toward ``amountPaid`` and the invoice becomes Paid: the payer
has done everything asked of them. See ``docs/invoices.md``.

Settled outside payhub: a connected accounting system or CRM says the invoice is paid, or a
store sold the order. The remaining balance is recorded as one payment with the external
source and reference and no gateway transaction (``settle_outside``). Only Draft and Sent
count as unpaid: Void was cancelled by the merchant and Paid has nothing due (both 409).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum

import attrs

from payhub.domain.addresses import Address
from payhub.domain.errors import Conflict, FieldError, ValidationError
from payhub.domain.fields import clean_text, raise_if_any
from payhub.domain.gateways import GatewayInfo, no_hosted_checkout
from payhub.domain.money import (
    Money,
    amount_ceiling,
    check_precision,
    minor_unit_exponent,
    round_half_up,
)
from payhub.domain.payments import MethodType
from payhub.domain.taxes import canonical_percent, clean_percent

DESCRIPTION_MAX = 500
LINES_MAX = 100
QUANTITY_MAX = Decimal(1_000_000)
QUANTITY_QUANTUM = Decimal("0.0001")
UNIT_PRICE_MAX = Decimal(1_000_000_000)
HUNDRED = Decimal(100)


class InvoiceStatus(StrEnum):
    DRAFT = "Draft"
    SENT = "Sent"
    PAID = "Paid"
    VOID = "Void"


class AllowedMethods(StrEnum):
    """Which payment methods the pay page offers."""

    CARD_ONLY = "CardOnly"
    BANK_ACCOUNT_ONLY = "BankAccountOnly"
    BOTH = "Both"

    def allows(self, method: MethodType) -> bool:
        if self is AllowedMethods.BOTH:
            return True
        wanted = MethodType.CARD if self is AllowedMethods.CARD_ONLY else MethodType.BANK_ACCOUNT
        return method is wanted

    @property
    def method_types(self) -> tuple[MethodType, ...]:
        return tuple(m for m in MethodType if self.allows(m))


class PartialPaymentMode(StrEnum):
    DISABLED = "Disabled"
    CUSTOMER_CHOICE = "CustomerChoice"
    FIXED_DEPOSIT = "FixedDeposit"


class PaymentSourceKind(StrEnum):
    """Where an invoice payment came from: a payhub charge or a system outside payhub."""

    PAY_PAGE = "PayPage"
    SCHEDULE = "Schedule"
    ACCOUNTING_ONLINE = "AccountingOnline"
    ACCOUNTING_DESKTOP = "AccountingDesktop"
    CRM = "Crm"
    STOREFRONT = "Storefront"

    @property
    def external(self) -> bool:
        """Settled outside payhub: no gateway transaction, no receipt."""
        return self not in (PaymentSourceKind.PAY_PAGE, PaymentSourceKind.SCHEDULE)


EXTERNAL_STATUS = "External"  # an InvoicePayment's status when settled outside payhub
EXTERNAL_REFERENCE_MAX = 200
EXTERNAL_SYSTEM_MAX = 40


class StoreOrderStatus(StrEnum):
    """A store order's payment state, as the store integration maps the platform's own."""

    PAID = "paid"
    UNPAID = "unpaid"
    ON_HOLD = "on-hold"
    CANCELLED = "cancelled"
    FAILED = "failed"


def should_import_order(status: StoreOrderStatus) -> bool:
    """Only orders the store counts as paid become invoices (spec: created already Paid);
    unpaid, on-hold, cancelled and failed orders are skipped."""
    return status is StoreOrderStatus.PAID


# --- lines ---------------------------------------------------------------------------------


@attrs.frozen
class LineInput:
    """A line as sent (unchecked)."""

    description: str
    quantity: Decimal
    unit_price: Decimal
    is_taxable: bool = True
    product_id: str | None = None


@attrs.frozen
class InvoiceLine:
    description: str
    quantity: Decimal
    unit_price: Money
    is_taxable: bool
    amount: Money  # quantity x unit price, rounded half-up
    tax: Money  # amount x percent, rounded half-up; zero when not taxable
    product_id: str | None = None


def line_amount(quantity: Decimal, unit_price: Money) -> Money:
    return unit_price.times(quantity)


def line_tax(amount: Money, percent: Decimal, taxable: bool) -> Money:
    """Tax on one line at the invoice percent, rounded half-up to the minor unit."""
    if not taxable:
        return Money.zero(amount.currency)
    return amount.times(percent / HUNDRED)


def price_line(
    description: str,
    quantity: Decimal,
    unit_price: Money,
    is_taxable: bool,
    percent: Decimal,
    product_id: str | None = None,
) -> InvoiceLine:
    amount = line_amount(quantity, unit_price)
    return InvoiceLine(
        description=description,
        quantity=quantity,
        unit_price=unit_price,
        is_taxable=is_taxable,
        amount=amount,
        tax=line_tax(amount, percent, is_taxable),
        product_id=product_id,
    )


@attrs.frozen
class Totals:
    subtotal: Money
    tax: Money
    total: Money


def totals(lines: tuple[InvoiceLine, ...] | list[InvoiceLine], currency: str) -> Totals:
    subtotal = Money.zero(currency)
    tax = Money.zero(currency)
    for line in lines:
        subtotal = subtotal + line.amount
        tax = tax + line.tax
    return Totals(subtotal, tax, subtotal + tax)


def _clean_quantity(value: Decimal, field: str, errors: list[FieldError]) -> Decimal:
    try:
        exact = value.quantize(QUANTITY_QUANTUM)
    except (InvalidOperation, AttributeError):
        errors.append(FieldError(field, "must be a number"))
        return Decimal(0)
    if not value.is_finite() or value <= 0:
        errors.append(FieldError(field, "must be more than zero"))
    elif value > QUANTITY_MAX:
        errors.append(FieldError(field, f"must be at most {QUANTITY_MAX}"))
    elif exact != value:
        errors.append(FieldError(field, "may have at most four decimal places"))
    return value


def clean_lines(
    given: list[LineInput], currency: str, percent: Decimal, errors: list[FieldError]
) -> tuple[InvoiceLine, ...]:
    """Check and price every line (faults named ``lineItems[i].field``)."""
    if not given:
        errors.append(FieldError("lineItems", "must hold at least one line"))
        return ()
    if len(given) > LINES_MAX:
        errors.append(FieldError("lineItems", f"may hold at most {LINES_MAX} lines"))
        return ()
    lines = []
    for i, line in enumerate(given):
        at = f"lineItems[{i}]"
        description = clean_text(line.description, f"{at}.description", DESCRIPTION_MAX, errors)
        if description is None:
            errors.append(FieldError(f"{at}.description", "must not be blank"))
        quantity = _clean_quantity(line.quantity, f"{at}.quantity", errors)
        price = Money.zero(currency)
        try:
            price = Money(check_precision(line.unit_price, currency, f"{at}.unitPrice"), currency)
            if price.amount < 0:
                errors.append(FieldError(f"{at}.unitPrice", "must not be negative"))
            elif price.amount > UNIT_PRICE_MAX:
                errors.append(FieldError(f"{at}.unitPrice", f"must be at most {UNIT_PRICE_MAX}"))
        except ValidationError as e:
            errors.extend(e.fields)
        lines.append(
            price_line(
                description or "",
                quantity,
                price,
                line.is_taxable,
                percent,
                line.product_id.strip() if line.product_id else None,
            )
        )
    return tuple(lines)


def clean_tax_percent(value: Decimal, errors: list[FieldError]) -> Decimal:
    return clean_percent(value, errors, field="taxRatePercent")


# --- payments ------------------------------------------------------------------------------


@attrs.frozen
class InvoicePayment:
    """A successful payment recorded against an invoice (``status`` is the transaction's:
    ``Captured``, ``Submitted`` for ACH, ``Authorized`` for authorize-only).

    Settled outside payhub (``source.external``): no transaction and no method type,
    ``status`` is ``External``, and ``external_reference`` (with ``external_system``, the
    CRM or store named) says which outside record paid it.
    """

    id: str
    invoice_id: str
    transaction_id: str | None
    amount: Money
    method_type: MethodType | None
    status: str
    source: PaymentSourceKind
    created_at: datetime
    external_system: str | None = None
    external_reference: str | None = None


@attrs.frozen
class PaymentOptions:
    """What the payer may pay now: one of ``fixed`` or, when ``minimum`` is set, any amount
    from ``minimum`` to ``maximum``. ``can_pay`` is false for Paid and Void invoices."""

    can_pay: bool
    fixed: tuple[Money, ...] = ()
    minimum: Money | None = None
    maximum: Money | None = None

    def accepts(self, amount: Money) -> bool:
        if not self.can_pay:
            return False
        if amount in self.fixed:
            return True
        return (
            self.minimum is not None
            and self.maximum is not None
            and self.minimum <= amount <= self.maximum
        )


# --- the invoice ---------------------------------------------------------------------------


@attrs.define
class Invoice:
    id: str
    merchant_id: str
    number: str
    pay_token: str = attrs.field(repr=False)
    customer_id: str | None
    currency: str
    lines: tuple[InvoiceLine, ...]
    tax_rate_id: str | None
    tax_percent: Decimal
    subtotal: Money
    tax: Money
    total: Money
    due_date: date | None
    gateway: str
    allowed_methods: AllowedMethods
    partial_mode: PartialPaymentMode
    deposit: Money | None
    authorize_only: bool
    bill_to: Address | None
    ship_to: Address | None
    location_id: str | None
    status: InvoiceStatus
    amount_paid: Money
    created_at: datetime
    updated_at: datetime
    description: str | None = None
    sent_at: datetime | None = None
    paid_at: datetime | None = None
    voided_at: datetime | None = None
    # A payment in flight: the amount is held under a lock while the gateway is called.
    reserved_amount: Money | None = None
    reserved_attempt: str | None = None
    reserved_at: datetime | None = None
    payments: list[InvoicePayment] = attrs.field(factory=list)

    @property
    def amount_due(self) -> Money:
        return self.total - self.amount_paid


# --- creation rules ------------------------------------------------------------------------


@attrs.frozen
class PaymentTerms:
    allowed_methods: AllowedMethods
    partial_mode: PartialPaymentMode
    deposit: Money | None
    authorize_only: bool


def check_terms(
    info: GatewayInfo,
    allowed: AllowedMethods,
    mode: PartialPaymentMode,
    deposit: Decimal | None,
    authorize_only: bool,
    total: Money,
    errors: list[FieldError],
) -> PaymentTerms:
    """Gateway abilities, the deposit and authorize-only (spec: Invoice, Errors: all 400)."""
    if not info.hosted_checkout:
        errors.append(FieldError("gateway", no_hosted_checkout(info)))
    if allowed is not AllowedMethods.CARD_ONLY and not info.ach:
        errors.append(
            FieldError(
                "allowedPaymentMethods",
                f"{allowed.value} needs a gateway that takes bank-account (ACH) payments;"
                f" {info.display_name} does not: use CardOnly",
            )
        )
    money: Money | None = None
    if mode is PartialPaymentMode.FIXED_DEPOSIT:
        if deposit is None:
            errors.append(FieldError("requiredDepositAmount", "is required with FixedDeposit"))
        else:
            try:
                money = Money(
                    check_precision(deposit, total.currency, "requiredDepositAmount"),
                    total.currency,
                )
                if not Decimal(0) < money.amount < total.amount:
                    errors.append(
                        FieldError(
                            "requiredDepositAmount",
                            f"must be more than zero and less than the total ({total})",
                        )
                    )
            except ValidationError as e:
                errors.extend(e.fields)
    elif deposit is not None:
        errors.append(FieldError("requiredDepositAmount", "is only used with FixedDeposit"))
    if authorize_only:
        if mode is not PartialPaymentMode.DISABLED:
            errors.append(
                FieldError("authorizeOnly", "is only allowed with partialPaymentMode Disabled")
            )
        if not info.authorize_only:
            errors.append(
                FieldError("authorizeOnly", f"{info.display_name} does not support authorize-only")
            )
        if allowed is not AllowedMethods.CARD_ONLY:
            errors.append(
                FieldError(
                    "authorizeOnly",
                    "a bank-account debit cannot be authorized only: use CardOnly",
                )
            )
    return PaymentTerms(allowed, mode, money, authorize_only)


def check_total(total: Money, errors: list[FieldError]) -> None:
    if total.amount <= 0:
        errors.append(FieldError("lineItems", "the invoice total must be more than zero"))
    elif total.amount > amount_ceiling(total.currency):
        errors.append(
            FieldError(
                "lineItems",
                f"the invoice total must be at most {amount_ceiling(total.currency)}"
                f" {total.currency}",
            )
        )


def copy_percent(percent: Decimal) -> Decimal:
    """A named rate's percentage as copied onto an invoice."""
    return canonical_percent(percent)


# --- the state table -----------------------------------------------------------------------


def check_send(invoice: Invoice) -> None:
    if invoice.status is InvoiceStatus.PAID:
        raise Conflict(f"invoice {invoice.number} is already Paid; there is nothing to send")
    if invoice.status is InvoiceStatus.VOID:
        raise Conflict(f"invoice {invoice.number} is Void and cannot be sent")


def mark_sent(invoice: Invoice, at: datetime) -> None:
    """Draft becomes Sent; sending a Sent invoice again re-sends the link and keeps it Sent."""
    check_send(invoice)
    invoice.status = InvoiceStatus.SENT
    invoice.sent_at = at
    invoice.updated_at = at


def mark_void(invoice: Invoice, at: datetime) -> None:
    if invoice.status is InvoiceStatus.PAID:
        raise Conflict(f"invoice {invoice.number} is Paid; a paid invoice cannot be voided")
    if invoice.reserved_attempt is not None:
        raise Conflict(
            f"a payment on invoice {invoice.number} is in progress; void it once it finishes"
        )
    if invoice.status is InvoiceStatus.VOID:
        return
    invoice.status = InvoiceStatus.VOID
    invoice.voided_at = at
    invoice.updated_at = at


def check_embed(invoice: Invoice, allowed_origins: tuple[str, ...] | list[str]) -> None:
    if invoice.status in (InvoiceStatus.DRAFT, InvoiceStatus.VOID):
        raise Conflict(
            f"invoice {invoice.number} is {invoice.status.value}; only a Sent or Paid invoice"
            " can be embedded"
        )
    if not allowed_origins:
        raise Conflict(
            "the merchant has no allowed website for embedding; add one in the portal"
            " (payhub invoices embed-origins --add https://shop.example)"
        )


# --- paying --------------------------------------------------------------------------------


def _minor(currency: str) -> Money:
    return Money(Decimal(1).scaleb(-minor_unit_exponent(currency)), currency)


def payment_options(invoice: Invoice) -> PaymentOptions:
    """What the payer may pay now, by the partial-payment mode and what is already paid."""
    due = invoice.amount_due
    if invoice.status in (InvoiceStatus.PAID, InvoiceStatus.VOID) or due.amount <= 0:
        return PaymentOptions(can_pay=False)
    paid_nothing = invoice.amount_paid.amount == 0
    if invoice.partial_mode is PartialPaymentMode.DISABLED:
        return PaymentOptions(can_pay=paid_nothing, fixed=(due,) if paid_nothing else ())
    if invoice.partial_mode is PartialPaymentMode.FIXED_DEPOSIT:
        deposit = invoice.deposit
        if paid_nothing and deposit is not None and deposit < due:
            return PaymentOptions(can_pay=True, fixed=(deposit, due))
        return PaymentOptions(can_pay=True, fixed=(due,))
    return PaymentOptions(can_pay=True, fixed=(due,), minimum=_minor(due.currency), maximum=due)


def check_payment(invoice: Invoice, amount: Decimal | None, method: MethodType) -> Money:
    """The amount this payment may take (``None``: the full balance), or why not.

    Paid or Void invoices and a payment already in flight are 409; an amount or method
    the rules do not allow is 400.
    """
    if invoice.status is InvoiceStatus.PAID:
        raise Conflict(f"invoice {invoice.number} is already Paid")
    if invoice.status is InvoiceStatus.VOID:
        raise Conflict(f"invoice {invoice.number} is Void and cannot be paid")
    if invoice.reserved_attempt is not None:
        raise Conflict(f"a payment on invoice {invoice.number} is already in progress")
    options = payment_options(invoice)
    errors: list[FieldError] = []
    if not invoice.allowed_methods.allows(method):
        errors.append(
            FieldError("type", f"this invoice accepts {invoice.allowed_methods.value} payments")
        )
    wanted = invoice.amount_due
    if amount is not None:
        try:
            wanted = Money(check_precision(amount, invoice.currency), invoice.currency)
        except ValidationError as e:
            errors.extend(e.fields)
            raise_if_any(errors)
    if not options.accepts(wanted):
        errors.append(FieldError("amount", _refusal(invoice, options, wanted)))
    raise_if_any(errors)
    return wanted


def _refusal(invoice: Invoice, options: PaymentOptions, wanted: Money) -> str:
    choices = " or ".join(str(m.amount) for m in options.fixed)
    if options.minimum is not None and options.maximum is not None:
        return (
            f"must be from {options.minimum.amount} to {options.maximum.amount}"
            f" {invoice.currency} (the balance due)"
        )
    if invoice.partial_mode is PartialPaymentMode.FIXED_DEPOSIT and len(options.fixed) == 2:
        return f"must be the deposit or the full balance: {choices} {invoice.currency}"
    return f"must be the full balance due: {choices} {invoice.currency}"


def reserve(invoice: Invoice, amount: Money, attempt: str, at: datetime) -> None:
    """Hold ``amount`` for one payment attempt (the invoice row is locked by the caller)."""
    invoice.reserved_amount = amount
    invoice.reserved_attempt = attempt
    invoice.reserved_at = at
    invoice.updated_at = at


def release(invoice: Invoice, at: datetime) -> None:
    invoice.reserved_amount = None
    invoice.reserved_attempt = None
    invoice.reserved_at = None
    invoice.updated_at = at


def apply_payment(invoice: Invoice, payment: InvoicePayment, at: datetime) -> None:
    """Append a successful payment; Paid once nothing is due. Refuses overpayment."""
    if payment.amount.currency != invoice.currency:
        raise ValidationError.for_field("amount.currency", f"must be {invoice.currency}")
    if payment.amount > invoice.amount_due:
        raise Conflict(
            f"a payment of {payment.amount} exceeds the {invoice.amount_due} due on"
            f" invoice {invoice.number}"
        )
    invoice.payments.append(payment)
    invoice.amount_paid = invoice.amount_paid + payment.amount
    if invoice.amount_due.amount == 0:
        invoice.status = InvoiceStatus.PAID
        invoice.paid_at = at
    invoice.updated_at = at


# --- settled outside payhub ----------------------------------------------------------------


@attrs.frozen
class ExternalSettlement:
    """Who says the invoice is paid: the source, which CRM or store (``system``) and the
    outside record (accounting invoice, CRM deal, store order). One per invoice and key."""

    source: PaymentSourceKind
    reference: str
    system: str | None = None


def _clean_identifier(value: str | None, field: str, limit: int, errors: list[FieldError]) -> str:
    text = (value or "").strip()
    if not text:
        errors.append(FieldError(field, "is required"))
    elif len(text) > limit or not text.isprintable():
        errors.append(FieldError(field, f"must be 1 to {limit} printable characters"))
    return text


def clean_settlement(
    source: PaymentSourceKind, reference: str, system: str | None = None
) -> ExternalSettlement:
    """400 unless the source is outside payhub, the reference is given, and ``system`` names
    the CRM (required with ``Crm``; optional store name with ``Storefront``; else none)."""
    errors: list[FieldError] = []
    if not source.external:
        errors.append(FieldError("source", f"{source.value} is not a system outside payhub"))
    ref = _clean_identifier(reference, "externalReference", EXTERNAL_REFERENCE_MAX, errors)
    name: str | None = None
    if source is PaymentSourceKind.CRM or (system is not None and system.strip()):
        if source in (PaymentSourceKind.CRM, PaymentSourceKind.STOREFRONT):
            name = _clean_identifier(system, "externalSystem", EXTERNAL_SYSTEM_MAX, errors)
        else:
            errors.append(FieldError("externalSystem", f"is not used with {source.value}"))
    raise_if_any(errors)
    return ExternalSettlement(source, ref, name)


def settle_outside(
    invoice: Invoice, settlement: ExternalSettlement, payment_id: str, at: datetime
) -> InvoicePayment:
    """Record that the rest of an unpaid invoice was paid outside payhub; it becomes Paid.

    Draft or Sent (partly paid or not) only: Paid (nothing due) and Void (cancelled by the
    merchant) are 409, and so is a pay-page payment in flight (its charge would overpay).
    The caller makes it idempotent per settlement key (``settlement_of``).
    """
    if invoice.status is InvoiceStatus.PAID:
        raise Conflict(f"invoice {invoice.number} is already Paid")
    if invoice.status is InvoiceStatus.VOID:
        raise Conflict(f"invoice {invoice.number} is Void; a cancelled invoice is not settled")
    if invoice.reserved_attempt is not None:
        raise Conflict(f"a payment on invoice {invoice.number} is in progress; try again later")
    payment = InvoicePayment(
        id=payment_id,
        invoice_id=invoice.id,
        transaction_id=None,
        amount=invoice.amount_due,
        method_type=None,
        status=EXTERNAL_STATUS,
        source=settlement.source,
        created_at=at,
        external_system=settlement.system,
        external_reference=settlement.reference,
    )
    apply_payment(invoice, payment, at)
    return payment


def settlement_of(invoice: Invoice, settlement: ExternalSettlement) -> InvoicePayment | None:
    """The payment this settlement already recorded on ``invoice``, if any."""
    for p in invoice.payments:
        if (p.source, p.external_system, p.external_reference) == (
            settlement.source,
            settlement.system,
            settlement.reference,
        ):
            return p
    return None


def round_money(amount: Decimal, currency: str) -> Money:
    return Money(round_half_up(amount, currency), currency)
