"""Scheduled payments and schedule requests of a merchant (docs/schedules.md)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter

from payhub.domain.addresses import Address
from payhub.domain.errors import PayHubError
from payhub.domain.invoices import LineInput
from payhub.domain.schedules import (
    ScheduleRequest,
    ScheduleRun,
)
from payhub.hub import MerchantScope
from payhub.ports import StoredResponse
from payhub.services.schedule_requests import RequestInput, approval_url
from payhub.services.schedules import Charge, ScheduleInput, Timing
from payhub.wire.schedules import RunOut, ScheduledPaymentOut, ScheduleRequestOut
from payhub_server.deps import MERCHANT_KEY_OK, Hub, Tenant, api_get, api_post
from payhub_server.encoding import encode
from payhub_server.idempotency import call_for, replayed, run_idempotent, stored
from payhub_server.problems import from_domain
from payhub_server.routes.addresses import AddressIn
from payhub_server.routes.invoices import LineItemIn
from payhub_server.routes.paging import CURSOR, LIMIT, page_out
from payhub_server.routes.wire import Page


class _RunResponder:
    """The HTTP answers a run-now stores under its Idempotency-Key (the service stores them
    in the same transaction as the run's outcome)."""

    def __init__(self, request: Request[Any, Any, Any]) -> None:
        self._request = request

    def success(self, run: ScheduleRun) -> StoredResponse:
        answer = stored(_json(RunOut.of(run), 201))
        assert answer is not None
        return answer

    def failure(self, error: PayHubError) -> StoredResponse | None:
        return stored(from_domain(self._request, error))


IDEMPOTENCY = HeaderParameter(
    name="Idempotency-Key", required=False, description="Retry safely: one outcome per key (24 h)"
)
Cadence = Literal["Daily", "Weekly", "Monthly", "Yearly"]


class _Plan(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    start_at_utc: datetime
    cadence: Cadence | None = None
    end_date: date | None = None
    max_charges: int | None = None
    amount: Decimal | None = None
    currency: str = "USD"
    line_items: list[LineItemIn] | None = None
    tax_rate_id: str | None = None
    tax_rate_percent: Decimal | None = None
    bill_to_address: AddressIn | None = None
    ship_to_address: AddressIn | None = None
    description: str | None = None

    def timing(self) -> Timing:
        return Timing(self.start_at_utc, self.cadence, self.end_date, self.max_charges)

    def charge(self) -> Charge:
        lines = None
        if self.line_items is not None:
            lines = [
                LineInput(x.description, x.quantity, x.unit_price, x.is_taxable, x.product_id)
                for x in self.line_items
            ]
        return Charge(self.currency, self.amount, lines, self.tax_rate_id, self.tax_rate_percent)

    def addresses(self) -> tuple[Address | None, Address | None]:
        return (
            self.bill_to_address.to_domain() if self.bill_to_address else None,
            self.ship_to_address.to_domain() if self.ship_to_address else None,
        )


class ScheduleCreate(_Plan, forbid_unknown_fields=True, kw_only=True):
    """Without `cadence`: one-time, at `startAtUtc`. With it: recurring from `startAtUtc`
    (wall-clock time in the merchant's time zone), until `endDate` (inclusive, local date)
    or `maxCharges` successful charges. Either a tax-free `amount` or `lineItems` (tax by
    `taxRateId` or `taxRatePercent`)."""

    customer_id: str
    payment_method_id: str


class CustomerRequestCreate(_Plan, forbid_unknown_fields=True, kw_only=True):
    """The gateway the customer's method will be saved with is named here."""

    gateway: str


class InvoiceRequestCreate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """Pays the invoice: `amount` per run defaults to the amount due; the invoice's customer,
    gateway and (when none are sent) addresses are used."""

    start_at_utc: datetime
    cadence: Cadence | None = None
    end_date: date | None = None
    max_charges: int | None = None
    amount: Decimal | None = None
    bill_to_address: AddressIn | None = None
    ship_to_address: AddressIn | None = None
    description: str | None = None


def _json(value: Any, status: int) -> Response[bytes]:
    return Response(encode(value), status_code=status, media_type="application/json")


class ScheduledPaymentController(Controller):
    path = "/api/merchant-accounts/{ref:str}"
    tags = ["Scheduled payments"]

    def _request_out(self, hub: Hub, r: ScheduleRequest) -> ScheduleRequestOut:
        return ScheduleRequestOut.of(r, approval_url(hub.deps, r.token))

    @api_post(
        "/scheduled-payments",
        opt=MERCHANT_KEY_OK,
        summary="Create a scheduled payment",
        status_code=201,
        responses={201: ResponseSpec(ScheduledPaymentOut, description="Created")},
    )
    def create_scheduled_payment(
        self,
        ref: FromPath[str],
        data: JSONBody[ScheduleCreate],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        hub: Hub,
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """Against a saved payment method of the customer (`paymentMethodId`; the method's
        gateway is used). 404 for an unknown customer; 400 for a method that is not the
        customer's or was removed, a `productId` or `taxRateId` that is not the merchant's,
        an address field too long, or a first run in the past."""
        scope = tenant.merchant(ref)
        bill_to, ship_to = data.addresses()
        given = ScheduleInput(
            data.customer_id,
            data.payment_method_id,
            data.timing(),
            data.charge(),
            bill_to,
            ship_to,
            data.description,
        )
        return run_idempotent(
            hub,
            tenant.caller,
            request,
            data,
            lambda: _json(ScheduledPaymentOut.view(scope.scheduled_payments.create(given)), 201),
        )

    @api_get("/scheduled-payments", opt=MERCHANT_KEY_OK, summary="List scheduled payments")
    def list_scheduled_payments(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        customer_id: Annotated[
            str | None, QueryParameter(name="customerId", description="Only this customer's")
        ] = None,
        status: Annotated[
            str | None, QueryParameter(description="Only those in this state")
        ] = None,
    ) -> Page[ScheduledPaymentOut]:
        """Newest first."""
        page = tenant.merchant(ref).scheduled_payments.list(
            starting_after, limit, customer_id, status
        )
        return page_out(page, ScheduledPaymentOut.of)

    @api_get(
        "/scheduled-payments/{scheduled_payment_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Get a scheduled payment",
    )
    def get_scheduled_payment(
        self, ref: FromPath[str], scheduled_payment_id: FromPath[str], tenant: Tenant
    ) -> ScheduledPaymentOut:
        """With its 20 most recent run attempts in `recentRuns`."""
        view = tenant.merchant(ref).scheduled_payments.get(scheduled_payment_id)
        return ScheduledPaymentOut.view(view)

    def _move(self, scope: MerchantScope, schedule_id: str, move: str) -> ScheduledPaymentOut:
        return ScheduledPaymentOut.view(getattr(scope.scheduled_payments, move)(schedule_id))

    @api_post(
        "/scheduled-payments/{scheduled_payment_id:str}/pause",
        opt=MERCHANT_KEY_OK,
        summary="Pause a scheduled payment",
        status_code=200,
    )
    def pause_scheduled_payment(
        self, ref: FromPath[str], scheduled_payment_id: FromPath[str], tenant: Tenant
    ) -> ScheduledPaymentOut:
        """Only an Active schedule (409 otherwise)."""
        return self._move(tenant.merchant(ref), scheduled_payment_id, "pause")

    @api_post(
        "/scheduled-payments/{scheduled_payment_id:str}/resume",
        opt=MERCHANT_KEY_OK,
        summary="Resume a scheduled payment",
        status_code=200,
    )
    def resume_scheduled_payment(
        self, ref: FromPath[str], scheduled_payment_id: FromPath[str], tenant: Tenant
    ) -> ScheduledPaymentOut:
        """From Paused (runs missed meanwhile are skipped) or Failed (the failed run is tried
        again at once); 409 otherwise."""
        return self._move(tenant.merchant(ref), scheduled_payment_id, "resume")

    @api_post(
        "/scheduled-payments/{scheduled_payment_id:str}/cancel",
        opt=MERCHANT_KEY_OK,
        summary="Cancel a scheduled payment",
        status_code=200,
    )
    def cancel_scheduled_payment(
        self, ref: FromPath[str], scheduled_payment_id: FromPath[str], tenant: Tenant
    ) -> ScheduledPaymentOut:
        """Permanent. 409 for a Cancelled or Completed schedule."""
        return self._move(tenant.merchant(ref), scheduled_payment_id, "cancel")

    @api_post(
        "/scheduled-payments/{scheduled_payment_id:str}/run-now",
        opt=MERCHANT_KEY_OK,
        summary="Charge a scheduled payment now",
        status_code=201,
        responses={201: ResponseSpec(RunOut, description="Charged")},
    )
    def run_scheduled_payment_now(
        self,
        ref: FromPath[str],
        scheduled_payment_id: FromPath[str],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        hub: Hub,
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """An immediate extra charge of an Active schedule (409 otherwise). It changes nothing
        else and does not count towards `maxCharges`. A decline is 402 (the attempt is still
        listed in `recentRuns`)."""
        scope = tenant.merchant(ref)
        call = call_for(tenant.caller, request, None)
        if call is None:
            run, _ = scope.scheduled_payments.run_now(scheduled_payment_id)
            return _json(RunOut.of(run), 201)
        answer = scope.scheduled_payments.run_now_once(
            scheduled_payment_id, call, _RunResponder(request)
        )
        if answer.replayed:
            assert answer.stored is not None
            return replayed(answer.stored)
        if answer.error is not None:
            return from_domain(request, answer.error)
        assert answer.stored is not None
        return Response(answer.stored.body, status_code=201, media_type="application/json")

    # --- schedule requests -----------------------------------------------------------------

    @api_post(
        "/customers/{customer_id:str}/schedule-requests",
        opt=MERCHANT_KEY_OK,
        summary="Ask a customer to approve a schedule",
        status_code=201,
    )
    def create_customer_schedule_request(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        data: JSONBody[CustomerRequestCreate],
        tenant: Tenant,
        hub: Hub,
    ) -> ScheduleRequestOut:
        """Flat or itemised; `gateway` names where the customer's method will be saved (the
        merchant must have credentials for it). Send the customer `approvalUrl`."""
        bill_to, ship_to = data.addresses()
        given = RequestInput(
            data.timing(), data.charge(), data.gateway, bill_to, ship_to, data.description
        )
        made = tenant.merchant(ref).schedule_requests.create_for_customer(customer_id, given)
        return self._request_out(hub, made)

    @api_post(
        "/invoices/{invoice_number:str}/schedule-requests",
        opt=MERCHANT_KEY_OK,
        summary="Ask the invoice's customer to approve a schedule that pays it",
        status_code=201,
    )
    def create_invoice_schedule_request(
        self,
        ref: FromPath[str],
        invoice_number: FromPath[str],
        data: JSONBody[InvoiceRequestCreate],
        tenant: Tenant,
        hub: Hub,
    ) -> ScheduleRequestOut:
        """Each run pays `amount` (default: the amount due, never more than is due) towards
        the invoice; the schedule completes once nothing is due. 409 for a Paid or Void
        invoice; 400 when it has no customer."""
        given = RequestInput(
            Timing(data.start_at_utc, data.cadence, data.end_date, data.max_charges),
            Charge(amount=data.amount),
            None,
            data.bill_to_address.to_domain() if data.bill_to_address else None,
            data.ship_to_address.to_domain() if data.ship_to_address else None,
            data.description,
        )
        made = tenant.merchant(ref).schedule_requests.create_for_invoice(invoice_number, given)
        return self._request_out(hub, made)

    @api_get("/schedule-requests", opt=MERCHANT_KEY_OK, summary="List schedule requests")
    def list_schedule_requests(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        hub: Hub,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
    ) -> Page[ScheduleRequestOut]:
        """Newest first."""
        page = tenant.merchant(ref).schedule_requests.list(starting_after, limit)
        return page_out(page, lambda r: self._request_out(hub, r))

    @api_get(
        "/schedule-requests/{schedule_request_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Get a schedule request",
    )
    def get_schedule_request(
        self, ref: FromPath[str], schedule_request_id: FromPath[str], tenant: Tenant, hub: Hub
    ) -> ScheduleRequestOut:
        made = tenant.merchant(ref).schedule_requests.get(schedule_request_id)
        return self._request_out(hub, made)

    @api_post(
        "/schedule-requests/{schedule_request_id:str}/cancel",
        opt=MERCHANT_KEY_OK,
        summary="Withdraw a schedule request",
        status_code=200,
    )
    def cancel_schedule_request(
        self, ref: FromPath[str], schedule_request_id: FromPath[str], tenant: Tenant, hub: Hub
    ) -> ScheduleRequestOut:
        """Only a Pending request (409 once Approved or Cancelled)."""
        made = tenant.merchant(ref).schedule_requests.cancel(schedule_request_id)
        return self._request_out(hub, made)
