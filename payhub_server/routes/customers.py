"""Customers of a merchant, their SMS consent and their saved payment methods."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter
from msgspec import UNSET, UnsetType

from payhub.domain.consent import ConsentRecord, ConsentState
from payhub.domain.customers import CustomerName, StoredPaymentMethod
from payhub.domain.payments import MethodType
from payhub.services.customers import CustomerInput, CustomerPatch
from payhub.services.edits import KEEP
from payhub.wire.customers import CustomerOut
from payhub_server.deps import (
    MERCHANT_KEY_OK,
    Hub,
    Tenant,
    api_delete,
    api_get,
    api_patch,
    api_post,
    api_put,
)
from payhub_server.encoding import encode
from payhub_server.idempotency import run_idempotent
from payhub_server.routes.addresses import AddressIn
from payhub_server.routes.paging import CURSOR, LIMIT, page_out
from payhub_server.routes.wire import Page


class NameIn(msgspec.Struct, forbid_unknown_fields=True):
    """At least one part is required."""

    first: str | None = None
    last: str | None = None
    company: str | None = None

    def to_domain(self) -> CustomerName:
        return CustomerName(self.first, self.last, self.company)


class CustomerCreate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    name: NameIn
    email: str | None = None
    phone: str | None = None
    website: str | None = None
    billing_address: AddressIn | None = None
    account_number: str | None = None
    sms_consent: bool | None = None
    location_id: str | None = None


class CustomerUpdate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """Fields left out stay as they are; `null` clears one (except `name`)."""

    name: NameIn | UnsetType = UNSET
    email: str | UnsetType | None = UNSET
    phone: str | UnsetType | None = UNSET
    website: str | UnsetType | None = UNSET
    billing_address: AddressIn | UnsetType | None = UNSET
    account_number: str | UnsetType | None = UNSET


class ConsentIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    consent: bool
    phone: str | None = None


class ConsentOut(msgspec.Struct, rename="camel"):
    """`phone` in E.164; `source` is `Api`, `PayPage`, `Portal` or `Keyword` (null: never
    recorded)."""

    consent: bool
    phone: str | None
    source: str | None
    recorded_at_utc: datetime | None

    @classmethod
    def of(cls, s: ConsentState) -> ConsentOut:
        return cls(s.consent, s.phone, s.source.value if s.source else None, s.recorded_at)


class ConsentRecordOut(msgspec.Struct, rename="camel"):
    consent_record_id: str
    consent: bool
    phone: str | None
    source: str
    recorded_by: str
    reason: str | None
    recorded_at_utc: datetime

    @classmethod
    def of(cls, r: ConsentRecord) -> ConsentRecordOut:
        return cls(r.id, r.consent, r.phone, r.source.value, r.recorded_by, r.reason, r.recorded_at)


class CustomerLocationIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    location_id: str | None


class SavePaymentMethodIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    payment_method_token: str
    type: Literal["Card", "BankAccount"] = "Card"


class PaymentMethodOut(msgspec.Struct, rename="camel"):
    """What is safe to show: never the gateway's references or any number but the last four."""

    payment_method_id: str
    customer_id: str
    gateway: str
    type: str
    brand: str | None
    last4: str | None
    exp_month: int | None
    exp_year: int | None
    bank_name: str | None
    created_at_utc: datetime

    @classmethod
    def of(cls, m: StoredPaymentMethod) -> PaymentMethodOut:
        return cls(
            payment_method_id=m.id,
            customer_id=m.customer_id,
            gateway=m.gateway,
            type=m.method_type.value,
            brand=m.brand,
            last4=m.last4,
            exp_month=m.exp_month,
            exp_year=m.exp_year,
            bank_name=m.bank_name,
            created_at_utc=m.created_at,
        )


def _keep(value: Any) -> Any:
    return KEEP if value is UNSET else value


IDEMPOTENCY = HeaderParameter(
    name="Idempotency-Key", required=False, description="Retry safely: one outcome per key (24 h)"
)


class CustomerController(Controller):
    path = "/api/merchant-accounts/{ref:str}/customers"
    tags = ["Customers"]

    @api_post("/", opt=MERCHANT_KEY_OK, summary="Create a customer")
    def create_customer(
        self, ref: FromPath[str], data: JSONBody[CustomerCreate], tenant: Tenant
    ) -> CustomerOut:
        """`accountNumber` is unique per merchant (409). `smsConsent: true` needs a valid US
        mobile `phone` (400). Without `locationId`, the merchant's default location is used
        when locations are enabled."""
        customer = tenant.merchant(ref).customers.create(
            CustomerInput(
                name=data.name.to_domain(),
                email=data.email,
                phone=data.phone,
                website=data.website,
                billing_address=data.billing_address.to_domain() if data.billing_address else None,
                account_number=data.account_number,
                sms_consent=data.sms_consent,
                location_id=data.location_id,
            )
        )
        return CustomerOut.of(customer)

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List customers")
    def list_customers(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        account_number: Annotated[
            str | None,
            QueryParameter(name="accountNumber", description="Only the customer with this number"),
        ] = None,
    ) -> Page[CustomerOut]:
        """Newest first. With `accountNumber`, the matching customer in a list (empty if none)."""
        page = tenant.merchant(ref).customers.list(starting_after, limit, account_number)
        return page_out(page, CustomerOut.of)

    @api_get("/{customer_id:str}", opt=MERCHANT_KEY_OK, summary="Get a customer")
    def get_customer(
        self, ref: FromPath[str], customer_id: FromPath[str], tenant: Tenant
    ) -> CustomerOut:
        return CustomerOut.of(tenant.merchant(ref).customers.get(customer_id))

    @api_patch("/{customer_id:str}", opt=MERCHANT_KEY_OK, summary="Update a customer")
    def update_customer(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        data: JSONBody[CustomerUpdate],
        tenant: Tenant,
    ) -> CustomerOut:
        """Only the fields sent change. A new `phone` withdraws SMS consent given for the old
        number (recorded in the consent history)."""
        patch = CustomerPatch(
            name=KEEP if isinstance(data.name, UnsetType) else data.name.to_domain(),
            email=_keep(data.email),
            phone=_keep(data.phone),
            website=_keep(data.website),
            billing_address=KEEP
            if isinstance(data.billing_address, UnsetType)
            else (data.billing_address.to_domain() if data.billing_address else None),
            account_number=_keep(data.account_number),
        )
        return CustomerOut.of(tenant.merchant(ref).customers.update(customer_id, patch))

    @api_put(
        "/{customer_id:str}/location", opt=MERCHANT_KEY_OK, summary="Set a customer's location"
    )
    def set_customer_location(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        data: JSONBody[CustomerLocationIn],
        tenant: Tenant,
    ) -> CustomerOut:
        """`locationId`: an active location of the merchant (400 otherwise), or null to clear."""
        customers = tenant.merchant(ref).customers
        return CustomerOut.of(customers.set_location(customer_id, data.location_id))

    # --- SMS consent -----------------------------------------------------------------------

    @api_get("/{customer_id:str}/sms-consent", opt=MERCHANT_KEY_OK, summary="Get SMS consent")
    def get_consent(
        self, ref: FromPath[str], customer_id: FromPath[str], tenant: Tenant
    ) -> ConsentOut:
        return ConsentOut.of(tenant.merchant(ref).customers.consent(customer_id))

    @api_put("/{customer_id:str}/sms-consent", opt=MERCHANT_KEY_OK, summary="Record SMS consent")
    def put_consent(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        data: JSONBody[ConsentIn],
        tenant: Tenant,
    ) -> ConsentOut:
        """`consent: true` asserts a clear opt-in and needs a valid US mobile number (`phone`,
        or the customer's stored one), else 400. `false` withdraws, always."""
        customers = tenant.merchant(ref).customers
        return ConsentOut.of(customers.record_consent(customer_id, data.consent, data.phone))

    @api_get(
        "/{customer_id:str}/sms-consent/history",
        opt=MERCHANT_KEY_OK,
        summary="List a customer's SMS consent history",
    )
    def consent_history(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
    ) -> Page[ConsentRecordOut]:
        """The audit trail, newest first: each change, its number, how and by whom."""
        page = tenant.merchant(ref).customers.consent_history(customer_id, starting_after, limit)
        return page_out(page, ConsentRecordOut.of)

    # --- saved payment methods -------------------------------------------------------------

    @api_post(
        "/{customer_id:str}/payment-methods/{gateway:str}",
        opt=MERCHANT_KEY_OK,
        summary="Save a payment method for reuse",
        status_code=201,
        responses={201: ResponseSpec(PaymentMethodOut, description="Saved")},
    )
    def save_payment_method(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        gateway: FromPath[str],
        data: JSONBody[SavePaymentMethodIn],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        hub: Hub,
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """Vaults a card or bank-account token (from the gateway's hosted fields) at the
        gateway. Bank accounts only on gateways that can save them (400 otherwise)."""
        customers = tenant.merchant(ref).customers

        def work() -> Response[bytes]:
            method = customers.save_payment_method(
                customer_id,
                gateway,
                data.payment_method_token,
                MethodType(data.type),
                idempotency_key,
            )
            body = encode(PaymentMethodOut.of(method))
            return Response(body, status_code=201, media_type="application/json")

        return run_idempotent(hub, tenant.caller, request, data, work)

    @api_get(
        "/{customer_id:str}/payment-methods",
        opt=MERCHANT_KEY_OK,
        summary="List a customer's saved payment methods",
    )
    def list_payment_methods(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        gateway: Annotated[str | None, QueryParameter(description="Only this gateway's")] = None,
    ) -> Page[PaymentMethodOut]:
        """Newest first."""
        customers = tenant.merchant(ref).customers
        page = customers.payment_methods(customer_id, starting_after, limit, gateway)
        return page_out(page, PaymentMethodOut.of)

    @api_delete(
        "/{customer_id:str}/payment-methods/{payment_method_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Remove a saved payment method",
        status_code=204,
    )
    def remove_payment_method(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        payment_method_id: FromPath[str],
        tenant: Tenant,
    ) -> None:
        """payhub stops offering the method (a second removal is 404)."""
        tenant.merchant(ref).customers.remove_payment_method(customer_id, payment_method_id)
