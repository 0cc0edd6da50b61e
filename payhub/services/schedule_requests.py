"""Schedule requests: a schedule the customer approves on a public page before it exists.

``ScheduleRequests`` (merchant-scoped) creates them, for a customer (gateway named) or tied to
an invoice (gateway, customer, amount due and addresses taken from the invoice), lists, gets
and cancels them. ``Approvals`` (public, by the link's token) shows one and approves it: the
customer's method is saved through the customers service first, and only then, in one unit of
work, is the schedule created and the request marked ``Approved``.

The approval form carries a single-use form token: a random nonce recorded for the request
when the page is shown, signed with the service's key and bound to that request, spent by
the POST. A forged, replayed, foreign or stale form token is refused (403).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime, timedelta
from decimal import Decimal

import attrs

from payhub.domain.accounts import Merchant, zone_of
from payhub.domain.addresses import Address
from payhub.domain.customers import Customer, StoredPaymentMethod
from payhub.domain.errors import Conflict, FieldError, Forbidden, NotFound, ValidationError
from payhub.domain.events import ScheduledPaymentCreated, ScheduleRequestApproved
from payhub.domain.fields import clean_text, raise_if_any
from payhub.domain.gateways import GatewayInfo, no_hosted_checkout
from payhub.domain.money import Money, round_half_up
from payhub.domain.payments import (
    Declined,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SavedMethod,
    TxStatus,
)
from payhub.domain.schedules import (
    DESCRIPTION_MAX,
    RequestStatus,
    ScheduleKind,
    ScheduleRequest,
    occurrence,
)
from payhub.ports import Gateway, UnitOfWork
from payhub.services.auth import Caller
from payhub.services.customers import Customers
from payhub.services.deps import Deps
from payhub.services.events import emit_for
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of
from payhub.services.payments import Payments
from payhub.services.schedule_invoices import open_invoice
from payhub.services.schedules import (
    Charge,
    CheckedCharge,
    CheckedTiming,
    Timing,
    caller_for,
    check_addresses,
    check_charge,
    check_timing,
    new_schedule,
    plan_next,
    publish_schedule,
    resolve_catalog,
)

TOKEN_BYTES = 24  # 192 bits
FORM_TTL = timedelta(hours=2)


@attrs.frozen
class RequestInput:
    timing: Timing
    charge: Charge = attrs.field(factory=Charge)
    gateway: str | None = None  # named for a customer's request; the invoice's otherwise
    bill_to: Address | None = None
    ship_to: Address | None = None
    description: str | None = None


def approval_url(deps: Deps, token: str) -> str:
    return deps.page_url(f"/approve/{token}")


class ScheduleRequests:
    def __init__(
        self, deps: Deps, caller: Caller, reference: str, gateways: dict[str, Gateway]
    ) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference
        self._gateways = gateways

    def url(self, request: ScheduleRequest) -> str:
        return approval_url(self._d, request.token)

    def _gateway(self, name: str | None) -> GatewayInfo:
        if name is None or not name.strip():
            raise ValidationError.for_field("gateway", "is required")
        try:
            return self._d.catalog.get(name.strip(), self._caller.environment)
        except NotFound:
            raise ValidationError.for_field(
                "gateway", f"'{name}' is not a supported gateway; GET /api/gateways lists them"
            ) from None

    def _new(
        self,
        merchant: Merchant,
        customer: Customer,
        info: GatewayInfo,
        timing: CheckedTiming,
        charge: CheckedCharge,
        bill_to: Address | None,
        ship_to: Address | None,
        description: str | None,
        invoice: tuple[str, str] | None = None,
    ) -> ScheduleRequest:
        now = self._d.clock.now()
        token = base64.urlsafe_b64encode(self._d.randomness.token_bytes(TOKEN_BYTES)).decode()
        return ScheduleRequest(
            id=self._d.new_id("sreq"),
            merchant_id=merchant.id,
            customer_id=customer.id,
            gateway=info.name,
            kind=timing.kind,
            cadence=timing.cadence,
            first_run_at=timing.first_run,
            end_date=timing.end_date,
            max_charges=timing.max_charges,
            currency=charge.currency,
            amount=charge.amount,
            lines=charge.lines,
            tax_rate_id=charge.tax_rate_id,
            tax_percent=charge.tax_percent,
            bill_to=bill_to,
            ship_to=ship_to,
            description=description,
            invoice_id=invoice[0] if invoice else None,
            invoice_number=invoice[1] if invoice else None,
            token=token.rstrip("="),
            status=RequestStatus.PENDING,
            created_at=now,
            updated_at=now,
        )

    def _check_gateway(self, uow: UnitOfWork, merchant: Merchant, info: GatewayInfo) -> None:
        stored = uow.credentials.get(merchant.id, info.name)
        if stored is None or not stored.enabled:
            raise ValidationError.for_field(
                "gateway", f"the merchant has no enabled {info.display_name} credentials"
            )
        if not info.card_vaulting:
            raise ValidationError.for_field(
                "gateway", f"{info.display_name} cannot save payment methods in payhub"
            )
        if not info.hosted_checkout:  # the approval page collects the card with its fields
            raise ValidationError.for_field("gateway", no_hosted_checkout(info))

    def create_for_customer(self, customer_id: str, given: RequestInput) -> ScheduleRequest:
        """A stand-alone request, flat or itemised; the gateway is named in the body."""
        errors: list[FieldError] = []
        info = self._gateway(given.gateway)
        charge = check_charge(given.charge, errors)
        bill_to, ship_to = check_addresses(given.bill_to, given.ship_to, errors)
        description = clean_text(given.description, "description", DESCRIPTION_MAX, errors)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            timing = check_timing(given.timing, now, merchant, errors)
            raise_if_any(errors)
            customer = uow.customers.get(merchant.id, customer_id)
            if customer is None:
                raise NotFound(f"no customer '{customer_id}' for this merchant")
            self._check_gateway(uow, merchant, info)
            charge = resolve_catalog(uow, merchant.id, charge)
            request = self._new(
                merchant, customer, info, timing, charge, bill_to, ship_to, description
            )
            uow.schedule_requests.add(request)
            return request

    def create_for_invoice(self, invoice_number: str, given: RequestInput) -> ScheduleRequest:
        """Tied to an invoice: its customer and gateway; a flat ``amount`` per run (the
        amount due when none is sent), each run recorded as a payment of the invoice; the
        invoice's addresses when none are sent."""
        errors: list[FieldError] = []
        if given.charge.line_items is not None:
            errors.append(FieldError("lineItems", "a request tied to an invoice pays its lines"))
        if given.gateway is not None:
            errors.append(FieldError("gateway", "is the invoice's"))
        bill_to, ship_to = check_addresses(given.bill_to, given.ship_to, errors)
        description = clean_text(given.description, "description", DESCRIPTION_MAX, errors)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            invoice = uow.invoices.get(merchant.id, invoice_number)
            if invoice is None:
                raise NotFound(f"no invoice '{invoice_number}' for this merchant")
            if open_invoice(uow, merchant.id, invoice.number) is None:
                raise Conflict(f"invoice {invoice.number} is {invoice.status}: nothing to pay")
            if invoice.customer_id is None:
                raise ValidationError.for_field(
                    "invoiceNumber", "the invoice has no customer to approve the schedule"
                )
            charge_in = attrs.evolve(
                given.charge,
                currency=invoice.currency,
                amount=invoice.amount_due.amount
                if given.charge.amount is None
                else given.charge.amount,
            )
            charge = check_charge(charge_in, errors)
            if charge.amount is not None and charge.amount > invoice.amount_due:
                errors.append(FieldError("amount", f"must not exceed the {invoice.amount_due} due"))
            timing = check_timing(given.timing, now, merchant, errors)
            raise_if_any(errors)
            customer = uow.customers.get(merchant.id, invoice.customer_id)
            assert customer is not None
            info = self._d.catalog.get(invoice.gateway, self._caller.environment)
            self._check_gateway(uow, merchant, info)
            if bill_to is None and ship_to is None:
                bill_to, ship_to = invoice.bill_to, invoice.ship_to
            request = self._new(
                merchant,
                customer,
                info,
                timing,
                charge,
                bill_to,
                ship_to,
                description,
                (invoice.id, invoice.number),
            )
            uow.schedule_requests.add(request)
            return request

    def _get(self, uow: UnitOfWork, request_id: str, lock: bool = False) -> ScheduleRequest:
        merchant = find_merchant(uow, self._caller, self._reference)
        request = uow.schedule_requests.get(merchant.id, request_id, for_update=lock)
        if request is None:
            raise NotFound(f"no schedule request '{request_id}' for this merchant")
        return request

    def get(self, request_id: str) -> ScheduleRequest:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._get(uow, request_id)

    def list(self, after: str | None = None, limit: int = 50) -> Page[ScheduleRequest]:
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            rows = uow.schedule_requests.list(merchant.id, after, limit + 1)
            if after is not None and not rows:
                check_cursor(uow.schedule_requests.get(merchant.id, after) is not None)
        return page_of(rows, limit, lambda r: r.id)

    def cancel(self, request_id: str) -> ScheduleRequest:
        """Withdraw a Pending request; its link then only says so (409 once Approved)."""
        with self._d.store.unit_of_work() as uow:
            request = self._get(uow, request_id, lock=True)
            request.cancel(self._d.clock.now())
            uow.schedule_requests.save(request)
            return request


# --- the public approval page ------------------------------------------------------------------


@attrs.frozen
class ApprovalView:
    request: ScheduleRequest
    merchant_name: str
    customer_name: str
    amount: Money
    first_run_at: datetime
    second_run_at: datetime | None
    time_zone: str
    gateway: GatewayInfo
    form_token: str | None  # only while the request can be approved
    method_label: str | None = None  # once approved: "Visa ending in 4242"


def method_label(method: StoredPaymentMethod | SavedMethod) -> str:
    """How the payer recognises a saved method: brand and last four, or the bank's."""
    if method.method_type is MethodType.BANK_ACCOUNT:
        bank = method.bank_name or "Bank account"
        return f"{bank} account ending in {method.last4}" if method.last4 else bank
    brand = (method.brand or "card").replace("_", " ")
    brand = brand.upper() if brand in ("amex", "jcb") else brand.title()
    return f"{brand} ending in {method.last4}" if method.last4 else brand


class Approvals:
    def __init__(self, deps: Deps, gateways: dict[str, Gateway]) -> None:
        self._d = deps
        self._gateways = gateways

    def _sign(self, request_id: str, nonce: str) -> str:
        mac = hmac.new(
            self._d.secrets.digest_key, f"approve\n{request_id}\n{nonce}".encode(), "sha256"
        )
        return mac.hexdigest()[:32]

    def _load(self, uow: UnitOfWork, token: str, lock: bool = False) -> ScheduleRequest:
        request = uow.schedule_requests.get_by_token(token, for_update=lock) if token else None
        if request is None:
            raise NotFound("this approval link is not valid")
        return request

    def view(self, token: str) -> ApprovalView:
        """The request as the customer sees it, with a fresh form token while it is Pending."""
        with self._d.store.unit_of_work() as uow:
            request = self._load(uow, token)
            merchant = uow.merchants.get(request.merchant_id)
            customer = uow.customers.get(request.merchant_id, request.customer_id)
            assert merchant is not None
            assert customer is not None
            caller = caller_for(uow, merchant, "approval-page")
            form_token = None
            if request.status is RequestStatus.PENDING:
                nonce = hashlib.sha256(self._d.randomness.token_bytes(16)).hexdigest()[:32]
                uow.schedule_requests.add_form(nonce, request.id, self._d.clock.now())
                form_token = f"{nonce}.{self._sign(request.id, nonce)}"
            label = None
            if request.schedule_id is not None:
                schedule = uow.scheduled_payments.get(request.merchant_id, request.schedule_id)
                saved = (
                    uow.payment_methods.get(
                        request.merchant_id, request.customer_id, schedule.payment_method_id
                    )
                    if schedule is not None
                    else None
                )
                label = method_label(saved) if saved is not None else None
        zone = zone_of(merchant)
        first = max(request.first_run_at, self._d.clock.now())
        anchor = first.astimezone(zone).replace(tzinfo=None, microsecond=0)
        second = None
        if request.kind is ScheduleKind.RECURRING:
            second = occurrence(anchor, request.cadence, 2, zone)
        return ApprovalView(
            request=request,
            merchant_name=merchant.display_name,
            customer_name=customer.name.display,
            amount=request.charge_amount(),
            first_run_at=first,
            second_run_at=second,
            time_zone=zone.key,
            gateway=self._d.catalog.get(request.gateway, caller.environment),
            form_token=form_token,
            method_label=label,
        )

    def _spend_form(self, uow: UnitOfWork, request: ScheduleRequest, form_token: str) -> None:
        nonce, _, signature = (form_token or "").partition(".")
        expected = self._sign(request.id, nonce)
        now = self._d.clock.now()
        if not (
            nonce
            and hmac.compare_digest(signature, expected)
            and uow.schedule_requests.use_form(nonce, request.id, now, now - FORM_TTL)
        ):
            raise Forbidden("this form has expired or was already used; reload the page")

    def approve(
        self, token: str, form_token: str, payment_token: str, method_type: MethodType
    ) -> ScheduleRequest:
        """Save the customer's method, then create the schedule and mark the request
        Approved. A Cancelled or Approved request is 409 and nothing is saved."""
        with self._d.store.unit_of_work() as uow:
            request = self._load(uow, token, lock=True)
            request.check_approvable()
            self._spend_form(uow, request, form_token)
            merchant = uow.merchants.get(request.merchant_id)
            assert merchant is not None
            caller = caller_for(uow, merchant, "approval-page")
        info = self._d.catalog.get(request.gateway, caller.environment)
        Payments.check_method(info, method_type, True)
        customers = Customers(self._d, caller, merchant.external_reference, self._gateways)
        payments = Payments(self._d, caller, merchant.external_reference, self._gateways)

        def verified(saved: SavedMethod) -> None:
            _require_verified(self._d, payments, info, request, saved)

        method = customers.save_payment_method(
            request.customer_id, info.name, payment_token, method_type, verify=verified
        )
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            request = self._load(uow, token, lock=True)
            request.check_approvable()  # approved in another tab meanwhile: 409
            customer = uow.customers.get(request.merchant_id, request.customer_id)
            assert customer is not None
            first = max(request.first_run_at, now.replace(microsecond=0))
            timing = CheckedTiming(
                request.kind, request.cadence, first, request.end_date, request.max_charges
            )
            charge = CheckedCharge(
                request.currency,
                request.amount,
                request.lines,
                request.tax_rate_id,
                request.tax_percent,
            )
            schedule = new_schedule(
                self._d,
                merchant,
                customer,
                method,
                timing,
                charge,
                request.bill_to,
                request.ship_to,
                request.description,
            )
            schedule.invoice_number = request.invoice_number
            uow.scheduled_payments.add(schedule)
            plan_next(uow, self._d, schedule)
            request.approve(schedule.id, now)
            uow.schedule_requests.save(request)
            data = self._d.snapshots.schedule_request(request, approval_url(self._d, request.token))
            emit_for(uow, self._d, ScheduleRequestApproved, merchant, request.id, data)
            publish_schedule(uow, self._d, ScheduledPaymentCreated, merchant, schedule)
            return request


def _require_verified(
    deps: Deps, payments: Payments, info: GatewayInfo, request: ScheduleRequest, saved: SavedMethod
) -> None:
    """A schedule is approved only with a method the gateway has verified: the vault's own
    verification, else a small authorization (the currency's one unit) voided at once, in the
    ledger like any other. A gateway that can do neither cannot take approvals online."""
    if saved.verified:
        return
    if saved.method_type is not MethodType.CARD or not info.authorize_only:
        raise ValidationError.for_field(
            "paymentMethodToken",
            f"{info.display_name} cannot verify this payment method before it is saved, so the"
            " schedule cannot be approved online; contact the business that sent the link",
        )
    amount = Money(round_half_up(Decimal(1), request.currency), request.currency)
    try:
        check = payments.charge_source(
            gateway_name=info.name,
            amount=amount,
            source=PaymentSource(
                MethodType.CARD,
                saved_method_ref=saved.method_ref,
                gateway_customer_ref=saved.gateway_customer_ref,
            ),
            capture=False,
            gateway_key=f"{request.id}:verify:{deps.new_id('chk')}",
            customer_id=request.customer_id,
            description="Card check before a payment schedule (voided at once)",
        )
    except Declined as e:
        raise PaymentMethodInvalid(
            "the card could not be verified: " + (e.gateway_message or e.detail),
            gateway=info.name,
            decline_code=e.decline_code,
            gateway_message=e.gateway_message or "Your card was declined.",
        ) from None
    if check.transaction.status is not TxStatus.AUTHORIZED:
        raise PaymentMethodInvalid("the card could not be verified", gateway=info.name)
    payments.void(info.name, check.transaction.id)
