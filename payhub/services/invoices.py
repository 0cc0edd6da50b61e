"""Invoices of one merchant, their numbers and settings, and the public pay page.

``Invoices`` (merchant-scoped, ``hub.provider(caller).merchant(ref).invoices``): create,
get, list, send, void, embed, and the portal's settings (number format, embed origins).
``PayPages`` (public, ``hub.pay_pages``): view an invoice by its pay token, pay it, and
record SMS consent after a payment.

Paying is reserve, call, confirm (like ``payments.py``): a unit of work locks the invoice,
checks the rules and *reserves* the amount for one attempt; the gateway is called outside
any transaction through ``Payments.charge_source`` with a gateway key derived from the
attempt id (a retried attempt never charges twice); a second unit of work records the
payment and releases the reservation. While a reservation stands, another attempt gets 409,
so two tabs or a double click can never pay twice. A declined or failed charge releases the
reservation and changes nothing else; a timed-out one keeps it until the same attempt is
retried (the gateway then answers for the original charge) or it goes stale (see
``RESERVATION_STALE_AFTER``).

For other services (scheduled payments), usable inside an open unit of work:

``issue_invoice(uow, deps, merchant, given, *, status=InvoiceStatus.DRAFT) -> Invoice``
    Check ``given`` (an ``InvoiceInput``) against every creation rule, number the invoice
    and store it. Raises ``ValidationError`` (400) and ``Conflict`` (409) as ``create``.

``record_invoice_payment(uow, deps, merchant, invoice, tx, *, source) -> InvoicePayment``
    Append a successful transaction (Captured, Submitted or Authorized) as a payment of
    ``invoice`` (loaded with ``for_update=True``), update amountPaid/status (Paid when
    nothing is due) and emit ``invoice.paid`` or ``invoice.partially_paid`` (the messaging
    reaction sends the receipt). Idempotent per transaction.

Events (``payhub.domain.events``): ``invoice.sent`` (send), ``invoice.voided`` (the first
void), ``invoice.paid`` / ``invoice.partially_paid`` (each recorded payment, details naming
it). The services never call messaging: the reactions decide what follows.

For the integrations (accounting, CRM, online stores), also inside an open unit of work:

``settle_externally(uow, deps, merchant, invoice_number, source, reference, *, system=None)``
    The invoice was paid outside payhub (marked paid in the accounting system, deal won in a
    CRM): record the balance due as a payment from ``source`` and make it Paid. No receipt
    is sent. Idempotent per (source, system, reference); 409 for Paid, Void or in flight.

``import_store_order(uow, deps, merchant, order) -> Invoice | None``
    A store order becomes an invoice created already Paid (a ``Storefront`` settlement)
    when the store counts it as paid; other orders give ``None``. Re-importing an order
    returns the invoice it made.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Collection, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal

import attrs

from payhub.domain.accounts import Merchant, zone_of
from payhub.domain.addresses import Address, clean_address
from payhub.domain.consent import ConsentRecord, ConsentSource, ConsentState, give_or_withdraw
from payhub.domain.debit_authorizations import DebitAuthorization, authorization_text, display_date
from payhub.domain.embedding import (
    change_origins,
    iframe_html,
    origin_of,
    resize_script_html,
)
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict, FieldError, NotFound, ValidationError
from payhub.domain.events import (
    DomainEvent,
    EventType,
    InvoicePaid,
    InvoicePartiallyPaid,
    InvoiceSent,
    InvoiceVoided,
)
from payhub.domain.fields import clean_text, raise_if_any
from payhub.domain.gateways import GatewayInfo
from payhub.domain.invoices import (
    AllowedMethods,
    ExternalSettlement,
    Invoice,
    InvoicePayment,
    InvoiceStatus,
    LineInput,
    PartialPaymentMode,
    PaymentOptions,
    PaymentSourceKind,
    StoreOrderStatus,
    apply_payment,
    check_embed,
    check_payment,
    check_terms,
    check_total,
    clean_lines,
    clean_settlement,
    clean_tax_percent,
    copy_percent,
    mark_sent,
    mark_void,
    payment_options,
    release,
    reserve,
    settle_outside,
    settlement_of,
    should_import_order,
    totals,
)
from payhub.domain.locations import effective_tax_rate_id
from payhub.domain.messaging import Channel
from payhub.domain.money import Money, format_money, minor_unit_exponent
from payhub.domain.numbering import (
    check_starting_number,
    default_number,
    is_invoice_number,
    parse_format,
    render,
)
from payhub.domain.payments import (
    GatewayTimeout,
    MethodType,
    PaymentSource,
    Transaction,
    TxStatus,
)
from payhub.ports import (
    CheckoutRequest,
    Gateway,
    InvoiceSettings,
    MakesPayPageCheckouts,
    PayPageCheckout,
    UnitOfWork,
)
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.events import emit_for
from payhub.services.gateway_access import open_credentials
from payhub.services.locations import pick_location
from payhub.services.merchants import day_range, find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of
from payhub.services.payments import Payments
from payhub.services.profiles import brand_of

PAY_TOKEN_BYTES = 24  # 192 bits
PLATFORM_SEQUENCE = "invoice-number"
NUMBER_ATTEMPTS = 1000
MEMO_MAX = 500
ATTEMPT_ID_MAX = 100
RESERVATION_STALE_AFTER = timedelta(minutes=15)
# A sale the gateway captures later (CapturePending) has moved the money as far as payhub can.
_SUCCEEDED = {
    TxStatus.CAPTURED,
    TxStatus.SUBMITTED,
    TxStatus.AUTHORIZED,
    TxStatus.CAPTURE_PENDING,
}


@attrs.frozen
class InvoiceInput:
    """A new invoice as sent (unchecked)."""

    line_items: list[LineInput]
    gateway: str
    customer_id: str | None = None
    currency: str = "USD"
    tax_rate_id: str | None = None
    tax_rate_percent: Decimal | None = None
    due_date: date | None = None
    allowed_payment_methods: AllowedMethods = AllowedMethods.BOTH
    partial_payment_mode: PartialPaymentMode = PartialPaymentMode.DISABLED
    required_deposit_amount: Decimal | None = None
    authorize_only: bool = False
    bill_to_address: Address | None = None
    ship_to_address: Address | None = None
    location_id: str | None = None
    description: str | None = None
    # A percentage already settled by the caller (a schedule's copy, even 0): never replaced
    # by the location's rate (location rule 5 is for invoices made through the API).
    tax_percent_settled: bool = False


@attrs.frozen
class SendResult:
    invoice: Invoice
    pay_url: str
    email_queued: bool


@attrs.frozen
class EmbedResult:
    embed_url: str
    iframe_html: str
    resize_script_html: str
    allowed_origins: tuple[str, ...]


@attrs.frozen
class NumberingSettings:
    """What the portal shows: the format in use (``None``: the default ``INV-`` numbers)."""

    number_format: str | None
    starting_number: int
    example: str


# --- URLs --------------------------------------------------------------------------------


def pay_url(deps: Deps, token: str) -> str:
    return deps.page_url(f"/pay/{token}")


def embed_url(deps: Deps, token: str) -> str:
    return deps.page_url(f"/embed/{token}")


def receipt_url(deps: Deps, token: str) -> str:
    return deps.page_url(f"/pay/{token}/receipt")


def publish_invoice(
    uow: UnitOfWork,
    deps: Deps,
    kind: EventType,
    merchant: Merchant,
    invoice: Invoice,
    details: dict[str, object] | None = None,
) -> DomainEvent:
    """Emit an invoice event with the invoice as the API returns it now."""
    data = deps.snapshots.invoice(invoice, pay_url(deps, invoice.pay_token))
    return emit_for(uow, deps, kind, merchant, invoice.id, data, details)


def _paid_event(
    uow: UnitOfWork, deps: Deps, merchant: Merchant, invoice: Invoice, payment: InvoicePayment
) -> DomainEvent:
    kind = InvoicePaid if invoice.status is InvoiceStatus.PAID else InvoicePartiallyPaid
    details: dict[str, object] = {
        "paymentId": payment.id,
        "transactionId": payment.transaction_id,
        "receiptUrl": receipt_url(deps, invoice.pay_token),
    }
    return publish_invoice(uow, deps, kind, merchant, invoice, details)


def _new_token(deps: Deps) -> str:
    raw = deps.randomness.token_bytes(PAY_TOKEN_BYTES)
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


# --- creation ------------------------------------------------------------------------------


def _environment(uow: UnitOfWork, merchant: Merchant) -> Environment:
    provider = uow.providers.get(merchant.provider_id)
    if provider is None:  # pragma: no cover - a merchant always has its provider
        raise NotFound("the merchant's provider is gone")
    return provider.environment


def _gateway_info(deps: Deps, name: str, environment: Environment) -> GatewayInfo:
    try:
        return deps.catalog.get(name, environment)
    except NotFound:
        raise ValidationError.for_field(
            "gateway", f"'{name}' is not a supported gateway; GET /api/gateways lists them"
        ) from None


def _tax_percent(
    uow: UnitOfWork,
    merchant: Merchant,
    given: InvoiceInput,
    location_id: str | None,
    errors: list[FieldError],
) -> tuple[Decimal, str | None]:
    """The invoice percent and the named rate it was copied from (location rule 5)."""
    if given.tax_rate_id is not None and given.tax_rate_percent is not None:
        errors.append(FieldError("taxRateId", "send taxRateId or taxRatePercent, not both"))
        return Decimal(0), None
    if given.tax_rate_id is not None:
        rate = uow.tax_rates.get(merchant.id, given.tax_rate_id)
        if rate is None or not rate.active:
            errors.append(FieldError("taxRateId", "is not an active tax rate of this merchant"))
            return Decimal(0), None
        return copy_percent(rate.percent), rate.id
    percent = Decimal(0)
    if given.tax_rate_percent is not None:
        percent = clean_tax_percent(given.tax_rate_percent, errors)
        if percent != 0:
            return percent, None
    if location_id is not None and not given.tax_percent_settled:
        # neither a rate nor a non-zero percent: the location's rate
        location = uow.locations.get(merchant.id, location_id)
        if location is not None and location.tax_rate_id is not None:
            active = uow.tax_rates.active_ids(merchant.id, {location.tax_rate_id})
            rate_id = effective_tax_rate_id(location.tax_rate_id, None, active)
            rate = uow.tax_rates.get(merchant.id, rate_id) if rate_id else None
            if rate is not None:
                return copy_percent(rate.percent), rate.id
    return percent, None


def _assign_number(
    uow: UnitOfWork,
    merchant: Merchant,
    settings: InvoiceSettings,
    location_id: str | None,
    now: datetime,
) -> str:
    """The next free number: the platform sequence (default) or the merchant's counter. A
    number already taken (after a format or start change) is skipped, never reused."""
    if settings.number_format is None:
        for _ in range(NUMBER_ATTEMPTS):
            number = default_number(uow.sequences.next_value(PLATFORM_SEQUENCE))
            if not uow.invoices.number_taken(merchant.id, number):
                return number
    else:
        fmt = parse_format(settings.number_format)
        code = None
        if location_id is not None:
            location = uow.locations.get(merchant.id, location_id)
            code = location.short_code if location else None
        local = now.astimezone(zone_of(merchant))
        sequence = f"invoice-number:{merchant.id}:{settings.generation}"
        for _ in range(NUMBER_ATTEMPTS):
            value = uow.sequences.next_value(sequence, settings.starting_number)
            number = render(fmt, value, local, code)
            if not uow.invoices.number_taken(merchant.id, number):
                return number
    raise Conflict("no free invoice number was found; choose another format or starting number")


def issue_invoice(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    given: InvoiceInput,
    *,
    status: InvoiceStatus = InvoiceStatus.DRAFT,
) -> Invoice:
    """Check, number and store a new invoice of ``merchant`` (see the module docstring)."""
    errors: list[FieldError] = []
    currency = (given.currency or "").strip().upper()
    try:
        minor_unit_exponent(currency)
    except ValidationError as e:
        errors.extend(e.fields)
        raise_if_any(errors)
    environment = _environment(uow, merchant)
    info = _gateway_info(deps, given.gateway, environment)
    stored = uow.credentials.get(merchant.id, info.name)
    if stored is None or not stored.enabled:
        errors.append(
            FieldError(
                "gateway",
                f"the merchant's {info.display_name} credentials are"
                f" {'not set' if stored is None else 'disabled'}",
            )
        )
    customer = None
    if given.customer_id is not None:
        customer = uow.customers.get(merchant.id, given.customer_id)
        if customer is None:
            errors.append(FieldError("customerId", "is not a customer of this merchant"))
    location_id = None
    try:
        location_id = pick_location(
            uow, merchant.id, given.location_id, customer.location_id if customer else None
        )
    except ValidationError as e:
        errors.extend(e.fields)
    percent, rate_id = _tax_percent(uow, merchant, given, location_id, errors)
    lines = clean_lines(given.line_items, currency, percent, errors)
    for i, line in enumerate(lines):
        if line.product_id is not None and uow.products.get(merchant.id, line.product_id) is None:
            errors.append(
                FieldError(f"lineItems[{i}].productId", "is not a product of this merchant")
            )
    sums = totals(lines, currency)
    if lines:
        check_total(sums.total, errors)
    terms = check_terms(
        info,
        given.allowed_payment_methods,
        given.partial_payment_mode,
        given.required_deposit_amount,
        given.authorize_only,
        sums.total,
        errors,
    )
    bill_to = clean_address(given.bill_to_address, "billToAddress", errors)
    ship_to = clean_address(given.ship_to_address, "shipToAddress", errors)
    memo = clean_text(given.description, "description", MEMO_MAX, errors)
    raise_if_any(errors)
    if bill_to is None and customer is not None:
        bill_to = customer.billing_address  # copied: later customer edits do not follow
    now = deps.clock.now()
    settings = uow.invoices.settings(merchant.id)
    invoice = Invoice(
        id=deps.new_id("inv"),
        merchant_id=merchant.id,
        number=_assign_number(uow, merchant, settings, location_id, now),
        pay_token=_new_token(deps),
        customer_id=customer.id if customer else None,
        currency=currency,
        description=memo,
        lines=lines,
        tax_rate_id=rate_id,
        tax_percent=percent,
        subtotal=sums.subtotal,
        tax=sums.tax,
        total=sums.total,
        due_date=given.due_date,
        gateway=info.name,
        allowed_methods=terms.allowed_methods,
        partial_mode=terms.partial_mode,
        deposit=terms.deposit,
        authorize_only=terms.authorize_only,
        bill_to=bill_to,
        ship_to=ship_to,
        location_id=location_id,
        status=status,
        amount_paid=Money.zero(currency),
        created_at=now,
        updated_at=now,
        sent_at=now if status is InvoiceStatus.SENT else None,
    )
    uow.invoices.add(invoice)
    return invoice


# --- payments ------------------------------------------------------------------------------


def record_invoice_payment(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    invoice: Invoice,
    tx: Transaction,
    *,
    source: PaymentSourceKind,
) -> InvoicePayment:
    """Record a successful transaction against ``invoice`` (locked by the caller)."""
    known = uow.invoices.payment_for_transaction(tx.id)
    if known is not None:
        if known.invoice_id != invoice.id:
            raise Conflict(f"transaction {tx.id} already paid another invoice")
        return known
    if tx.status not in _SUCCEEDED:
        raise Conflict(f"transaction {tx.id} is {tx.status.value}, not a successful payment")
    if invoice.status is InvoiceStatus.VOID:
        raise Conflict(f"invoice {invoice.number} is Void")
    now = deps.clock.now()
    payment = InvoicePayment(
        id=deps.new_id("ipy"),
        invoice_id=invoice.id,
        transaction_id=tx.id,
        amount=tx.amount,
        method_type=tx.method_type,
        status=tx.status.value,
        source=source,
        created_at=now,
    )
    apply_payment(invoice, payment, now)
    uow.invoices.save(invoice)
    uow.invoices.add_payment(payment)
    _paid_event(uow, deps, merchant, invoice, payment)
    return payment


# --- settled outside payhub ----------------------------------------------------------------


@attrs.frozen
class StoreOrder:
    """An online-store order as the store integration maps it (unchecked).

    ``customer_id``: the payhub customer the integration matched or created (by the
    store's customer id, or by email for a guest). ``total`` is what the store charged:
    an invoice whose computed total differs is refused rather than recorded wrongly.
    ``gateway`` is the merchant's gateway the invoice names (nothing is charged).
    """

    store: str | None
    reference: str  # the store's order id
    status: StoreOrderStatus
    gateway: str
    currency: str
    line_items: list[LineInput]
    total: Decimal
    tax_rate_percent: Decimal | None = None
    customer_id: str | None = None
    bill_to_address: Address | None = None
    ship_to_address: Address | None = None
    description: str | None = None


def _record_settlement(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    invoice: Invoice,
    settlement: ExternalSettlement,
) -> InvoicePayment:
    payment = settle_outside(invoice, settlement, deps.new_id("ipy"), deps.clock.now())
    uow.invoices.save(invoice)
    uow.invoices.add_payment(payment)
    # invoice.paid all the same; the messaging reaction sends no receipt for a payment
    # without a transaction (the payer paid the merchant's own system, which sends its own).
    _paid_event(uow, deps, merchant, invoice, payment)
    return payment


def settle_externally(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    invoice_number: str,
    source: PaymentSourceKind,
    reference: str,
    *,
    system: str | None = None,
) -> InvoicePayment:
    """Invoice ``invoice_number`` was paid outside payhub: record the balance due from
    ``source`` (``system``: which CRM) with the outside record's ``reference`` and make it
    Paid. The same settlement again returns the recorded payment and changes nothing.

    400: a source inside payhub, a blank reference, a CRM without its name. 404: no such
    invoice. 409: Paid or Void, a pay-page payment in flight, or the reference already
    settled another invoice of the merchant.
    """
    settlement = clean_settlement(source, reference, system)
    invoice = None
    if is_invoice_number(invoice_number):
        invoice = uow.invoices.get(merchant.id, invoice_number, for_update=True)
    if invoice is None:
        raise NotFound(f"no invoice '{invoice_number}' for this merchant")
    known = settlement_of(invoice, settlement)
    if known is not None:
        return known  # the next background check saw it again
    elsewhere = uow.invoices.settled_by(
        merchant.id, settlement.source, settlement.system, settlement.reference
    )
    if elsewhere is not None:
        raise Conflict(
            f"{source.value} record {settlement.reference} already settled invoice {elsewhere[0]}"
        )
    return _record_settlement(uow, deps, merchant, invoice, settlement)


def import_store_order(
    uow: UnitOfWork, deps: Deps, merchant: Merchant, order: StoreOrder
) -> Invoice | None:
    """A paid store order becomes an invoice created already Paid, settled by the store.

    Orders the store does not count as paid are skipped (``None``). The invoice takes the
    order's lines, tax percentage (never a location's rate), addresses and customer; it is
    never sent. Importing the same order again returns the invoice it made. 400 as
    ``issue_invoice``, or when the invoice's total is not the order's.
    """
    if not should_import_order(order.status):
        return None
    settlement = clean_settlement(PaymentSourceKind.STOREFRONT, order.reference, order.store)
    done = uow.invoices.settled_by(
        merchant.id, settlement.source, settlement.system, settlement.reference
    )
    if done is not None:
        invoice = uow.invoices.get(merchant.id, done[0])
        assert invoice is not None
        return invoice
    invoice = issue_invoice(
        uow,
        deps,
        merchant,
        InvoiceInput(
            line_items=order.line_items,
            gateway=order.gateway,
            customer_id=order.customer_id,
            currency=order.currency,
            tax_rate_percent=order.tax_rate_percent,
            allowed_payment_methods=AllowedMethods.CARD_ONLY,
            bill_to_address=order.bill_to_address,
            ship_to_address=order.ship_to_address,
            description=order.description,
            tax_percent_settled=True,
        ),
    )
    if invoice.total.amount != order.total:
        raise ValidationError.for_field(
            "total",
            f"the order's total {order.total} is not the invoice's {invoice.total.amount}"
            f" {invoice.currency} (lines and tax as sent)",
        )
    _record_settlement(uow, deps, merchant, invoice, settlement)
    return invoice


def attempt_gateway_key(invoice: Invoice, attempt_id: str) -> str:
    """The gateway idempotency key of one pay-page attempt: same attempt, same key."""
    digest = hashlib.sha256(f"{invoice.id}\n{attempt_id}".encode()).hexdigest()
    return f"inv-{digest[:40]}"


# --- the merchant's invoices ---------------------------------------------------------------


class Invoices:
    """Invoices of one merchant (``M/invoices``) and the portal's invoice settings."""

    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def _merchant(self, uow: UnitOfWork) -> Merchant:
        return find_merchant(uow, self._caller, self._reference)

    @staticmethod
    def _get(uow: UnitOfWork, merchant: Merchant, number: str, lock: bool = False) -> Invoice:
        invoice = None
        if is_invoice_number(number):
            invoice = uow.invoices.get(merchant.id, number, for_update=lock)
        if invoice is None:
            raise NotFound(f"no invoice '{number}' for this merchant")
        return invoice

    def create(self, given: InvoiceInput) -> Invoice:
        """Every field is fixed here; nothing can be edited afterwards."""
        with self._d.store.unit_of_work() as uow:
            return issue_invoice(uow, self._d, self._merchant(uow), given)

    def get(self, number: str) -> Invoice:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._get(uow, self._merchant(uow), number)

    def pay_url(self, invoice: Invoice) -> str:
        return pay_url(self._d, invoice.pay_token)

    def list(
        self,
        customer_id: str | None = None,
        after: str | None = None,
        limit: int = 50,
        statuses: Collection[InvoiceStatus] | None = None,
        created_from: date | None = None,
        created_to: date | None = None,
    ) -> Page[Invoice]:
        """Newest first; ``after`` is the invoiceNumber ending the previous page. Filters:
        status, and the days created (``created_from`` to ``created_to`` inclusive, on the
        merchant's calendar)."""
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = self._merchant(uow)
            since, until = day_range(merchant, created_from, created_to)
            rows = uow.invoices.list(
                merchant.id,
                after,
                limit + 1,
                customer_id,
                [s.value for s in statuses] if statuses else None,
                since,
                until,
            )
            if after is not None and not rows:
                check_cursor(
                    is_invoice_number(after) and uow.invoices.number_taken(merchant.id, after)
                )
        return page_of(rows, limit, lambda i: i.number)

    def send(self, number: str) -> SendResult:
        """Draft becomes Sent and the pay link is emailed (when email is configured); sending
        a Sent invoice again re-sends the link. The link is returned either way."""
        with self._d.store.unit_of_work() as uow:
            merchant = self._merchant(uow)
            invoice = self._get(uow, merchant, number, lock=True)
            mark_sent(invoice, self._d.clock.now())
            uow.invoices.save(invoice)
            link = pay_url(self._d, invoice.pay_token)
            event = publish_invoice(uow, self._d, InvoiceSent, merchant, invoice)
            # emailQueued: whether a reaction (messaging) queued an email for this send.
            emailed = any(m.channel is Channel.EMAIL for m in uow.messages.caused_by(event.id))
            return SendResult(invoice, link, emailed)

    def void(self, number: str) -> Invoice:
        """Any state but Paid becomes Void (409 once Paid or while a payment is in flight)."""
        with self._d.store.unit_of_work() as uow:
            merchant = self._merchant(uow)
            invoice = self._get(uow, merchant, number, lock=True)
            was_void = invoice.status is InvoiceStatus.VOID
            mark_void(invoice, self._d.clock.now())
            uow.invoices.save(invoice)
            if not was_void:
                publish_invoice(uow, self._d, InvoiceVoided, merchant, invoice)
            return invoice

    def embed(self, number: str) -> EmbedResult:
        """The embed snippets; changes nothing. 409 for Draft, Void, or no allowed website."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = self._merchant(uow)
            invoice = self._get(uow, merchant, number)
            origins = uow.invoices.settings(merchant.id).embed_origins
        check_embed(invoice, origins)
        url = embed_url(self._d, invoice.pay_token)
        return EmbedResult(
            embed_url=url,
            iframe_html=iframe_html(url, invoice.number),
            resize_script_html=resize_script_html(origin_of(url), invoice.number),
            allowed_origins=origins,
        )

    # --- the portal's settings -------------------------------------------------------------

    def numbering(self) -> NumberingSettings:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = self._merchant(uow)
            settings = uow.invoices.settings(merchant.id)
        return self._numbering(merchant, settings)

    def _numbering(self, merchant: Merchant, settings: InvoiceSettings) -> NumberingSettings:
        if settings.number_format is None:
            return NumberingSettings(None, 1, default_number(1))
        fmt = parse_format(settings.number_format)
        local = self._d.clock.now().astimezone(zone_of(merchant))
        example = render(fmt, settings.starting_number, local, "LOC1")
        return NumberingSettings(fmt.text, settings.starting_number, example)

    def preview_numbering(self, number_format: str, start: int | None = None) -> str:
        """The first number ``number_format`` would give today (400 with the reason when it
        is not usable); changes nothing. ``{LOC}`` shows as ``LOC1``."""
        fmt = parse_format(number_format)
        first = check_starting_number(fmt, 1 if start is None else start)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = self._merchant(uow)
        local = self._d.clock.now().astimezone(zone_of(merchant))
        return render(fmt, first, local, "LOC1")

    def set_numbering(
        self, number_format: str | None, start: int | None = None
    ) -> NumberingSettings:
        """Set the merchant's format (``None``: back to the default) and first counter value.
        A new format or start begins a new counter; numbers already used are skipped."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = self._merchant(uow)
            current = uow.invoices.settings(merchant.id)
            if number_format is None:
                if start is not None:
                    raise ValidationError.for_field(
                        "start", "a starting number needs a format with a counter token"
                    )
                settings = attrs.evolve(
                    current, number_format=None, starting_number=1,
                    generation=current.generation + 1,
                )  # fmt: skip
            else:
                fmt = parse_format(number_format)
                first = check_starting_number(fmt, 1 if start is None else start)
                settings = attrs.evolve(
                    current, number_format=fmt.text, starting_number=first,
                    generation=current.generation + 1,
                )  # fmt: skip
            uow.invoices.put_settings(merchant.id, settings, now)
        return self._numbering(merchant, settings)

    def embed_origins(self) -> tuple[str, ...]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return uow.invoices.settings(self._merchant(uow).id).embed_origins

    def change_embed_origins(
        self,
        add: Sequence[str] = (),
        remove: Sequence[str] = (),
        clear: bool = False,
    ) -> tuple[str, ...]:
        """Up to 10 https sites (no path, no wildcard) that may frame the pay page."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = self._merchant(uow)
            current = uow.invoices.settings(merchant.id)
            origins = change_origins(current.embed_origins, add, remove, clear)
            uow.invoices.put_settings(
                merchant.id, attrs.evolve(current, embed_origins=origins), now
            )
        return origins


# --- the public pay page -------------------------------------------------------------------


@attrs.frozen
class PaymentFacts:
    """What a receipt names about one payment: the method as the gateway reported it and the
    gateway's reference for the charge (not a secret: it is what support staff look up)."""

    brand: str | None
    last4: str | None
    gateway_reference: str | None


@attrs.frozen
class PayPageView:
    """Everything the pay, embed and receipt pages show; nothing secret."""

    invoice: Invoice
    merchant_name: str
    merchant_reference: str
    environment: Environment
    options: PaymentOptions
    method_types: tuple[MethodType, ...]
    gateway_name: str
    gateway_display_name: str
    hosted_fields: str
    allowed_origins: tuple[str, ...]
    pay_url: str
    embed_url: str
    receipt_url: str
    customer_name: str | None
    sms_consent_offered: bool  # a customer exists and at least one payment succeeded
    sms_consent_given: bool
    payment_in_progress: bool
    # Only the last four digits of the customer's number: the page is public by link.
    customer_phone_last4: str | None = None
    time_zone: str = "UTC"  # the merchant's: the pages show dates and times in it
    today: date | None = None  # the clock's date in that zone
    # By invoice payment id: the method and gateway reference, for receipts.
    payment_facts: dict[str, PaymentFacts] = attrs.field(factory=dict)
    # How to reach the merchant: the invoice's location (name, address, phone) when it has one,
    # else the merchant profile's address, phone and email (the portal's Settings).
    merchant_contact: tuple[str, ...] = ()
    merchant_logo: str | None = None  # the profile's logo as a data: URI

    @property
    def amount_due(self) -> Money:
        return self.invoice.amount_due


def _payment_facts(
    uow: UnitOfWork, merchant: Merchant, invoice: Invoice
) -> dict[str, PaymentFacts]:
    facts: dict[str, PaymentFacts] = {}
    for payment in invoice.payments:
        if payment.transaction_id is None:
            continue
        tx = uow.transactions.get(merchant.id, payment.transaction_id)
        if tx is not None:
            facts[payment.id] = PaymentFacts(tx.method_brand, tx.method_last4, tx.gateway_reference)
    return facts


def _merchant_contact(uow: UnitOfWork, merchant: Merchant, invoice: Invoice) -> tuple[str, ...]:
    """The invoice's location, when it has one: the merchant record itself has only a name."""
    location = uow.locations.get(merchant.id, invoice.location_id) if invoice.location_id else None
    if location is None:
        return ()
    lines = [location.name]
    if location.address is not None:
        a = location.address
        region = " ".join(x for x in (a.state, a.postal_code) if x)
        place = ", ".join(x for x in (a.city, region) if x)
        lines.append(", ".join(x for x in (a.line1, a.line2, place) if x))
    if location.phone:
        lines.append(location.phone)
    return tuple(x for x in lines if x)


def _paid_here(invoice: Invoice) -> bool:
    """A payment went through payhub (a settlement outside it does not offer SMS consent)."""
    return any(p.transaction_id is not None for p in invoice.payments)


def _last4(phone: str | None) -> str | None:
    digits = "".join(ch for ch in phone or "" if ch.isdigit())
    return digits[-4:] if len(digits) >= 4 else None


@attrs.frozen
class PageCheckout:
    """The amount-bound session a pay-page payment was started with (``PayPages.checkout``),
    as the page hands it back when it pays: the amount it was made for and the vendor's id."""

    amount: Decimal
    reference: str


@attrs.frozen
class MadeCheckout:
    """A session made for the payer's chosen amount: ``amount`` as the invoice's rules
    accepted it, ``made`` the vendor's session (its reference and its public values)."""

    amount: Money
    made: PayPageCheckout


def _check_checkout(
    adapter: MakesPayPageCheckouts, checkout: PageCheckout | None, wanted: Money, token: str
) -> None:
    """A gateway whose sessions are bound to an amount takes only a token of the session made
    for exactly this amount (a session for 10.00 cannot pay 100.00), else 400."""
    if checkout is None:
        raise ValidationError.for_field(
            "checkoutToken", "is required on this gateway: start the payment again"
        )
    if checkout.amount != wanted.amount:
        raise ValidationError.for_field(
            "amount",
            f"must be {checkout.amount} {wanted.currency}, the amount this payment was started"
            " with: start the payment again",
        )
    if adapter.checkout_reference(token) != checkout.reference:
        raise ValidationError.for_field(
            "paymentMethodToken", "does not belong to this payment: start the payment again"
        )


@attrs.frozen
class _Held:
    """An attempt's reservation: what the gateway call needs."""

    invoice: Invoice
    merchant: Merchant
    environment: Environment
    key: str
    amount: Money


@attrs.frozen
class PayResult:
    view: PayPageView
    payment: InvoicePayment


def _clean_attempt(attempt_id: str) -> str:
    attempt = (attempt_id or "").strip()
    if not 1 <= len(attempt) <= ATTEMPT_ID_MAX or not attempt.isprintable():
        raise ValidationError.for_field(
            "attemptId", f"must be 1 to {ATTEMPT_ID_MAX} printable characters"
        )
    return attempt


class PayPages:
    """The public pay page's operations, by pay token (no caller, no key)."""

    def __init__(self, deps: Deps, gateways: dict[str, Gateway]) -> None:
        self._d = deps
        self._gateways = gateways

    def _load(self, uow: UnitOfWork, pay_token: str, lock: bool = False) -> Invoice:
        invoice = uow.invoices.get_by_token(pay_token, for_update=lock) if pay_token else None
        if invoice is None:
            raise NotFound("no invoice at this link")
        return invoice

    def _merchant(self, uow: UnitOfWork, invoice: Invoice) -> Merchant:
        merchant = uow.merchants.get(invoice.merchant_id)
        assert merchant is not None
        return merchant

    def _view(self, uow: UnitOfWork, invoice: Invoice) -> PayPageView:
        merchant = self._merchant(uow, invoice)
        environment = _environment(uow, merchant)
        info = self._d.catalog.get(invoice.gateway, environment)
        customer = (
            uow.customers.get(merchant.id, invoice.customer_id) if invoice.customer_id else None
        )
        brand = brand_of(uow, merchant)
        return PayPageView(
            invoice=invoice,
            merchant_name=brand.name,
            merchant_reference=merchant.external_reference,
            environment=environment,
            options=payment_options(invoice),
            method_types=invoice.allowed_methods.method_types,
            gateway_name=info.name,
            gateway_display_name=info.display_name,
            hosted_fields=info.hosted_fields,
            allowed_origins=uow.invoices.settings(merchant.id).embed_origins,
            pay_url=pay_url(self._d, invoice.pay_token),
            embed_url=embed_url(self._d, invoice.pay_token),
            receipt_url=receipt_url(self._d, invoice.pay_token),
            customer_name=customer.name.display if customer else None,
            sms_consent_offered=customer is not None and _paid_here(invoice),
            sms_consent_given=customer is not None and customer.consent.consent,
            payment_in_progress=invoice.reserved_attempt is not None,
            customer_phone_last4=_last4(customer.phone if customer else None),
            time_zone=zone_of(merchant).key,
            today=self._d.clock.now().astimezone(zone_of(merchant)).date(),
            payment_facts=_payment_facts(uow, merchant, invoice),
            merchant_contact=_merchant_contact(uow, merchant, invoice) or brand.contact_lines,
            merchant_logo=brand.logo_uri,
        )

    def view(self, pay_token: str) -> PayPageView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._view(uow, self._load(uow, pay_token))

    def pay(
        self,
        pay_token: str,
        *,
        amount: Decimal | None,
        payment_token: str,
        method_type: MethodType,
        attempt_id: str,
        debit_authorized: bool = False,
        payer_ip: str | None = None,
        payer_agent: str | None = None,
        checkout: PageCheckout | None = None,
    ) -> PayResult:
        """Pay the invoice (``amount`` None: the full balance) by a hosted-fields token.

        On a gateway whose pay-page sessions are bound to an amount (``checkout``), the
        amount and the token must be those of the session ``checkout`` made (400 otherwise).

        409: Paid or Void, or another attempt in flight; 400: amount or method not allowed;
        402: declined (nothing changes). Repeating an attempt id never charges twice: a
        finished attempt returns its recorded payment.

        A bank debit needs ``debit_authorized``: the payer ticked the authorization the page
        shows (400 on ``debitAuthorization`` otherwise). Its words, with the amount charged,
        are recorded with the payment, with ``payer_ip`` and ``payer_agent``, and go to the
        gateway as the payer's acceptance where the gateway takes one.
        """
        attempt = _clean_attempt(attempt_id)
        token = (payment_token or "").strip()
        if method_type is MethodType.BANK_ACCOUNT and not debit_authorized:
            raise ValidationError.for_field(
                "debitAuthorization",
                "must be true: the payer authorizes the bank debit before it is sent",
            )
        held = self._reserve(pay_token, attempt, token, amount, method_type, checkout)
        if isinstance(held, PayResult):
            return held
        invoice, merchant, key, wanted = held.invoice, held.merchant, held.key, held.amount
        accepted = None
        if method_type is MethodType.BANK_ACCOUNT:
            now = self._d.clock.now()
            accepted = DebitAuthorization(
                text=authorization_text(
                    merchant.display_name,
                    format_money(wanted),
                    display_date(now.astimezone(zone_of(merchant)).date()),
                    invoice.number,
                ),
                accepted_at=now,
                ip_address=(payer_ip or "")[:64] or None,
                user_agent=(payer_agent or "")[:512] or None,
            )
        caller = Caller(merchant.provider_id, held.environment, api_key_id="pay-page")
        payments = Payments(self._d, caller, merchant.external_reference, self._gateways)
        try:
            charged = payments.charge_source(
                gateway_name=invoice.gateway,
                amount=wanted,
                source=PaymentSource(method_type, token=token, authorization=accepted),
                capture=not invoice.authorize_only,
                gateway_key=key,
                location_id=invoice.location_id,
                customer_id=invoice.customer_id,
                description=f"Invoice {invoice.number}",
            )
        except GatewayTimeout:
            raise  # outcome unknown: the reservation stays until this attempt is retried
        except BaseException:
            self._release(pay_token, attempt)
            raise
        tx = charged.transaction
        if tx.status not in _SUCCEEDED:
            if tx.status is TxStatus.FAILED:
                self._release(pay_token, attempt)
                raise Conflict(
                    "this payment attempt already failed; start a new attempt to try again"
                )
            raise Conflict("the outcome of this payment is not known yet; retry this attempt")
        with self._d.store.unit_of_work() as uow:
            invoice = self._load(uow, pay_token, lock=True)
            if invoice.reserved_attempt == attempt:
                release(invoice, self._d.clock.now())
                uow.invoices.save(invoice)
            payment = record_invoice_payment(
                uow, self._d, merchant, invoice, tx, source=PaymentSourceKind.PAY_PAGE
            )
            if accepted is not None:
                uow.debit_authorizations.add(merchant.id, invoice.id, tx.id, accepted)
            return PayResult(self._view(uow, invoice), payment)

    def _reserve(
        self,
        pay_token: str,
        attempt: str,
        token: str,
        amount: Decimal | None,
        method_type: MethodType,
        checkout: PageCheckout | None = None,
    ) -> _Held | PayResult:
        """Check the rules and hold the amount for this attempt under the invoice's lock;
        a finished attempt gives its recorded result instead."""
        for _ in range(2):  # a second round only after a stale reservation was settled
            now = self._d.clock.now()
            with self._d.store.unit_of_work() as uow:
                invoice = self._load(uow, pay_token, lock=True)
                merchant = self._merchant(uow, invoice)
                environment = _environment(uow, merchant)
                info = self._d.catalog.get(invoice.gateway, environment)
                key = attempt_gateway_key(invoice, attempt)
                done = uow.transactions.get_by_gateway_key(merchant.id, key)
                recorded = uow.invoices.payment_for_transaction(done.id) if done else None
                if recorded is not None:
                    return PayResult(self._view(uow, invoice), recorded)
                if not token:
                    raise ValidationError.for_field(
                        "paymentMethodToken",
                        f"is required: collect the payment method with {info.hosted_fields}",
                    )
                if invoice.reserved_attempt not in (None, attempt):
                    self._settle_stale(uow, merchant, invoice, now)
                    continue  # commits what the ledger told, then checks again
                if invoice.reserved_attempt == attempt and invoice.reserved_amount is not None:
                    wanted = invoice.reserved_amount  # the same attempt, resumed
                else:
                    wanted = check_payment(invoice, amount, method_type)
                    Payments.check_method(info, method_type, capture=not invoice.authorize_only)
                    adapter = self._gateways.get(info.name)
                    if isinstance(adapter, MakesPayPageCheckouts):
                        _check_checkout(adapter, checkout, wanted, token)
                    reserve(invoice, wanted, attempt, now)
                    uow.invoices.save(invoice)
                return _Held(invoice, merchant, environment, key, wanted)
        raise Conflict("a payment on this invoice is already in progress")  # pragma: no cover

    def checkout(
        self,
        pay_token: str,
        *,
        amount: Decimal | None,
        method_type: MethodType,
        origin: str,
        session_id: str,
    ) -> MadeCheckout:
        """Make the gateway's session for the amount the payer chose (``None``: the balance),
        checked by the same rules as the payment itself (``check_payment``: 400 or 409), with
        the merchant's credentials through the adapter; 409 when the gateway makes none."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            invoice = self._load(uow, pay_token)
            merchant = self._merchant(uow, invoice)
            info = self._d.catalog.get(invoice.gateway, _environment(uow, merchant))
            wanted = check_payment(invoice, amount, method_type)
            Payments.check_method(info, method_type, capture=not invoice.authorize_only)
            adapter = self._gateways.get(info.name)
            if not isinstance(adapter, MakesPayPageCheckouts):
                raise Conflict(f"{info.display_name} makes no amount-bound pay-page sessions")
            creds = open_credentials(
                uow, self._d.secrets, merchant.id, merchant.external_reference, info
            )
        request = CheckoutRequest(
            amount=wanted,
            capture=not invoice.authorize_only,
            idempotency_key=f"{attempt_gateway_key(invoice, session_id)}-s",
            origin=origin,
            description=f"Invoice {invoice.number}",
            currency=wanted.currency,
        )
        return MadeCheckout(wanted, adapter.pay_page_checkout(creds, request))

    def _release(self, pay_token: str, attempt: str) -> None:
        with self._d.store.unit_of_work() as uow:
            invoice = self._load(uow, pay_token, lock=True)
            if invoice.reserved_attempt == attempt:
                release(invoice, self._d.clock.now())
                uow.invoices.save(invoice)

    def _settle_stale(
        self, uow: UnitOfWork, merchant: Merchant, invoice: Invoice, now: datetime
    ) -> None:
        """Another attempt holds the invoice: 409, unless its reservation is stale and the
        ledger says how it ended (then it is recorded or released)."""
        held = invoice.reserved_attempt
        assert held is not None
        at = invoice.reserved_at or now
        if now - at < RESERVATION_STALE_AFTER:
            raise Conflict(f"a payment on invoice {invoice.number} is already in progress")
        tx = uow.transactions.get_by_gateway_key(merchant.id, attempt_gateway_key(invoice, held))
        if tx is not None and tx.status not in _SUCCEEDED and tx.status is not TxStatus.FAILED:
            raise Conflict(
                f"an earlier payment on invoice {invoice.number} has an unknown outcome;"
                " it must be settled before another payment"
            )
        release(invoice, now)
        uow.invoices.save(invoice)
        if tx is not None and tx.status in _SUCCEEDED:
            record_invoice_payment(
                uow, self._d, merchant, invoice, tx, source=PaymentSourceKind.PAY_PAGE
            )

    def give_sms_consent(self, pay_token: str, *, phone: str | None) -> ConsentState:
        """The payer agrees to texts after paying (source ``PayPage``); 409 before any
        successful payment or on an invoice without a customer."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            invoice = self._load(uow, pay_token)
            if invoice.customer_id is None:
                raise Conflict("this invoice has no customer to record consent for")
            if not _paid_here(invoice):
                raise Conflict("SMS consent can be given here only after a successful payment")
            customer = uow.customers.get(invoice.merchant_id, invoice.customer_id)
            if customer is None:  # pragma: no cover - customers are never deleted
                raise NotFound("the invoice's customer is gone")
            state = give_or_withdraw(
                customer.consent, True, phone, customer.phone, ConsentSource.PAY_PAGE, now
            )
            assert state.source is not None
            customer.consent = state
            customer.updated_at = now
            uow.customers.add_consent(
                ConsentRecord(
                    id=self._d.new_id("cns"),
                    merchant_id=customer.merchant_id,
                    customer_id=customer.id,
                    consent=True,
                    phone=state.phone,
                    source=ConsentSource.PAY_PAGE,
                    recorded_by=f"pay-page:{invoice.number}",
                    recorded_at=now,
                )
            )
            uow.customers.save(customer)
            return state
