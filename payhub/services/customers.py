"""Customers of one merchant: records, SMS consent (with its history) and saved methods.

Consent is recorded on the customer (the current state) and appended to the history in the
same unit of work, so the two never disagree. Saving a payment method calls the gateway
outside any database transaction: first the checks, then the gateway, then the record.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from payhub.domain.addresses import Address, clean_address
from payhub.domain.consent import (
    NO_CONSENT,
    ConsentRecord,
    ConsentSource,
    ConsentState,
    after_phone_change,
    clean_phone,
    give_or_withdraw,
)
from payhub.domain.customers import (
    ACCOUNT_NUMBER_MAX,
    Customer,
    CustomerName,
    StoredPaymentMethod,
    clean_account_number,
    clean_email,
    clean_name,
    clean_website,
)
from payhub.domain.errors import Conflict, FieldError, Forbidden, NotFound, ValidationError
from payhub.domain.events import CustomerCreated
from payhub.domain.fields import clean_text, collect, raise_if_any
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo
from payhub.domain.payments import MethodType, SavedMethod, SaveMethodRequest
from payhub.ports import Gateway, UnitOfWork
from payhub.services.auth import PORTAL_CALLER, Caller
from payhub.services.deps import Deps
from payhub.services.edits import KEEP, Keep
from payhub.services.events import emit_for
from payhub.services.gateway_access import adapter_for, open_credentials
from payhub.services.locations import pick_location
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of
from payhub.services.payments import gateway_key

OPERATOR_MAX = 100
PHONE_CHANGED = "phone changed"


@attrs.frozen
class CustomerInput:
    """A new customer as sent (unchecked)."""

    name: CustomerName
    email: str | None = None
    phone: str | None = None
    website: str | None = None
    billing_address: Address | None = None
    account_number: str | None = None
    sms_consent: bool | None = None
    location_id: str | None = None


@attrs.frozen
class CustomerPatch:
    """An edit: fields left out (``KEEP``) stay, ``None`` clears."""

    name: CustomerName | Keep = KEEP
    email: str | Keep | None = KEEP
    phone: str | Keep | None = KEEP
    website: str | Keep | None = KEEP
    billing_address: Address | Keep | None = KEEP
    account_number: str | Keep | None = KEEP


@attrs.frozen
class _Contact:
    email: str | None
    phone: str | None
    website: str | None


def _contact(
    email: str | None, phone: str | None, website: str | None, errors: list[FieldError]
) -> _Contact:
    found: list[str | None] = []
    for check, value in ((clean_email, email), (clean_phone, phone), (clean_website, website)):
        try:
            found.append(check(value))
        except ValidationError as e:
            collect(errors, e)
            found.append(None)
    return _Contact(found[0], found[1], found[2])


class Customers:
    def __init__(
        self, deps: Deps, caller: Caller, reference: str, gateways: dict[str, Gateway]
    ) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference
        self._gateways = gateways

    # --- helpers ---------------------------------------------------------------------------

    def _get(self, uow: UnitOfWork, customer_id: str) -> Customer:
        merchant = find_merchant(uow, self._caller, self._reference)
        customer = uow.customers.get(merchant.id, customer_id)
        if customer is None:
            raise NotFound(f"no customer '{customer_id}' for this merchant")
        return customer

    @staticmethod
    def _check_account_number(
        uow: UnitOfWork, merchant_id: str, number: str | None, own: str | None
    ) -> None:
        if number is None:
            return
        holder = uow.customers.get_by_account_number(merchant_id, number)
        if holder is not None and holder.id != own:
            raise Conflict(f"customer '{holder.id}' already has the accountNumber '{number}'")

    def _record(
        self,
        uow: UnitOfWork,
        customer: Customer,
        state: ConsentState,
        recorded_by: str,
        reason: str | None = None,
    ) -> None:
        assert state.source is not None
        assert state.recorded_at is not None
        customer.consent = state
        uow.customers.add_consent(
            ConsentRecord(
                id=self._d.new_id("cns"),
                merchant_id=customer.merchant_id,
                customer_id=customer.id,
                consent=state.consent,
                phone=state.phone,
                source=state.source,
                recorded_by=recorded_by,
                recorded_at=state.recorded_at,
                reason=reason,
            )
        )

    # --- customers -------------------------------------------------------------------------

    def create(self, given: CustomerInput) -> Customer:
        errors: list[FieldError] = []
        name = clean_name(given.name.first, given.name.last, given.name.company, errors)
        contact = _contact(given.email, given.phone, given.website, errors)
        address = clean_address(given.billing_address, "billingAddress", errors)
        account = clean_text(given.account_number, "accountNumber", ACCOUNT_NUMBER_MAX, errors)
        now = self._d.clock.now()
        consent: ConsentState | None = None
        phone_ok = not any(e.field == "phone" for e in errors)
        if given.sms_consent is not None and phone_ok:
            try:
                consent = give_or_withdraw(
                    NO_CONSENT, given.sms_consent, None, contact.phone, ConsentSource.API, now
                )
            except ValidationError as e:
                collect(errors, e)
        raise_if_any(errors)
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            self._check_account_number(uow, merchant.id, account, None)
            customer = Customer(
                id=self._d.new_id("cus"),
                merchant_id=merchant.id,
                name=name,
                email=contact.email,
                phone=contact.phone,
                website=contact.website,
                billing_address=address,
                account_number=account,
                location_id=pick_location(uow, merchant.id, given.location_id),
                created_at=now,
                updated_at=now,
                consent=consent or NO_CONSENT,
            )
            uow.customers.add(customer)
            if consent is not None:
                self._record(uow, customer, consent, self._caller.api_key_id)
            data = self._d.snapshots.customer(customer)
            emit_for(uow, self._d, CustomerCreated, merchant, customer.id, data)
            return customer

    def get(self, customer_id: str) -> Customer:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._get(uow, customer_id)

    def list(
        self,
        after: str | None = None,
        limit: int = 50,
        account_number: str | None = None,
        search: str | None = None,
    ) -> Page[Customer]:
        """Newest first; with ``account_number``, the one customer holding it (or none);
        ``search``: part of a name, company, email, phone or account number."""
        search = (search or "").strip()[:100] or None
        check_limit(limit)
        number = clean_account_number(account_number) if account_number is not None else None
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            if account_number is not None and number is None:
                return Page([], False, None)  # a blank number matches no customer
            rows = uow.customers.list(merchant.id, after, limit + 1, number, search)
            if after is not None and not rows:
                check_cursor(uow.customers.get(merchant.id, after) is not None)
        return page_of(rows, limit, lambda c: c.id)

    def update(self, customer_id: str, patch: CustomerPatch) -> Customer:
        """Change what is sent. A new phone number withdraws consent given for the old one."""
        errors: list[FieldError] = []
        name = None
        if patch.name is not KEEP:
            name = clean_name(patch.name.first, patch.name.last, patch.name.company, errors)
        contact = _contact(
            None if patch.email is KEEP else patch.email,
            None if patch.phone is KEEP else patch.phone,
            None if patch.website is KEEP else patch.website,
            errors,
        )
        address = None
        if patch.billing_address is not KEEP:
            address = clean_address(patch.billing_address, "billingAddress", errors)
        account = None
        if patch.account_number is not KEEP:
            account = clean_text(patch.account_number, "accountNumber", ACCOUNT_NUMBER_MAX, errors)
        raise_if_any(errors)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            customer = self._get(uow, customer_id)
            if name is not None:
                customer.name = name
            if patch.email is not KEEP:
                customer.email = contact.email
            if patch.website is not KEEP:
                customer.website = contact.website
            if patch.billing_address is not KEEP:
                customer.billing_address = address
            if patch.account_number is not KEEP:
                self._check_account_number(uow, customer.merchant_id, account, customer.id)
                customer.account_number = account
            if patch.phone is not KEEP:
                customer.phone = contact.phone
                ended = after_phone_change(customer.consent, contact.phone, ConsentSource.API, now)
                if ended is not None:
                    self._record(uow, customer, ended, self._caller.api_key_id, PHONE_CHANGED)
            customer.updated_at = now
            uow.customers.save(customer)
            return customer

    def set_location(self, customer_id: str, location_id: str | None) -> Customer:
        """The customer's usual location (an active location of the merchant), or none."""
        with self._d.store.unit_of_work() as uow:
            customer = self._get(uow, customer_id)
            if location_id is not None and not uow.locations.active_ids(
                customer.merchant_id, {location_id}
            ):
                raise ValidationError.for_field(
                    "locationId", "is not an active location of this merchant"
                )
            customer.location_id = location_id
            customer.updated_at = self._d.clock.now()
            uow.customers.save(customer)
            return customer

    # --- SMS consent -----------------------------------------------------------------------

    def consent(self, customer_id: str) -> ConsentState:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._get(uow, customer_id).consent

    def record_consent(self, customer_id: str, consent: bool, phone: str | None) -> ConsentState:
        """Consent recorded through the API (source ``Api``, by the calling key)."""
        return self._give_or_withdraw(
            customer_id, consent, phone, ConsentSource.API, self._caller.api_key_id
        )

    def record_consent_as_staff(
        self, customer_id: str, consent: bool, phone: str | None, operator: str
    ) -> ConsentState:
        """Consent recorded by merchant staff in the portal (source ``Portal``)."""
        errors: list[FieldError] = []
        who = clean_text(operator, "operator", OPERATOR_MAX, errors)
        if who is None:
            errors.append(FieldError("operator", "must name the staff member recording it"))
        raise_if_any(errors)
        return self._give_or_withdraw(
            customer_id, consent, phone, ConsentSource.PORTAL, f"portal:{who}"
        )

    def record_consent_in_portal(
        self, customer_id: str, consent: bool, phone: str | None
    ) -> ConsentState:
        """Consent recorded by the signed-in portal user (source ``Portal``): the record names
        that user's id, taken from the session's caller, never from anything typed."""
        who = self._caller.api_key_id
        if not who.startswith(PORTAL_CALLER):
            raise Forbidden("only a signed-in portal user records consent this way")
        return self._give_or_withdraw(customer_id, consent, phone, ConsentSource.PORTAL, who)

    def _give_or_withdraw(
        self,
        customer_id: str,
        consent: bool,
        phone: str | None,
        source: ConsentSource,
        recorded_by: str,
    ) -> ConsentState:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            customer = self._get(uow, customer_id)
            state = give_or_withdraw(customer.consent, consent, phone, customer.phone, source, now)
            self._record(uow, customer, state, recorded_by)
            customer.updated_at = now
            uow.customers.save(customer)
            return state

    def consent_history(
        self, customer_id: str, after: str | None = None, limit: int = 50
    ) -> Page[ConsentRecord]:
        """Every consent change of the customer, newest first."""
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            customer = self._get(uow, customer_id)
            rows = uow.customers.consent_history(
                customer.merchant_id, customer.id, after, limit + 1
            )
            if after is not None and not rows:
                check_cursor(uow.customers.has_consent_record(customer.id, after))
        return page_of(rows, limit, lambda r: r.id)

    # --- saved payment methods -------------------------------------------------------------

    def _info(self, gateway_name: str) -> GatewayInfo:
        return self._d.catalog.get(gateway_name, self._caller.environment)

    @staticmethod
    def _check_vaulting(info: GatewayInfo, method_type: MethodType) -> None:
        if method_type is MethodType.CARD:
            if not info.card_vaulting:
                raise ValidationError.for_field(
                    "type", f"{info.display_name} cannot save cards in payhub"
                )
            return
        vaulting = info.bank_account_vaulting
        if vaulting is BankAccountVaulting.NONE:
            raise ValidationError.for_field(
                "type", f"{info.display_name} does not take bank-account (ACH) payments in payhub"
            )
        if vaulting is BankAccountVaulting.FRESH_ONLY:
            raise ValidationError.for_field(
                "type",
                f"{info.display_name} cannot save bank accounts: charge each ACH payment"
                " with a fresh token (POST /api/payments/charge)",
            )

    def save_payment_method(
        self,
        customer_id: str,
        gateway_name: str,
        token: str,
        method_type: MethodType = MethodType.CARD,
        idempotency_key: str | None = None,
        verify: Callable[[SavedMethod], None] | None = None,
    ) -> StoredPaymentMethod:
        """Vault a card or bank-account token at the gateway, for reuse.

        The customer's gateway-side record is created on the first save and reused after.
        ``verify`` (the approval page's) sees the vault's answer before anything is stored
        and raises to refuse the method; then payhub keeps no record of it.
        """
        info = self._info(gateway_name)
        token = token.strip()
        if not token:
            raise ValidationError.for_field(
                "paymentMethodToken",
                f"is required: collect the payment method with {info.hosted_fields}",
            )
        self._check_vaulting(info, method_type)
        with self._d.store.unit_of_work(readonly=True) as uow:
            customer = self._get(uow, customer_id)
            creds = open_credentials(
                uow, self._d.secrets, customer.merchant_id, self._reference, info, "gateway"
            )
            adapter = adapter_for(self._gateways, info)
            known = uow.payment_methods.gateway_customer_ref(customer.id, info.name)
        method_id = self._d.new_id("pm")
        saved = adapter.save_payment_method(
            creds,
            SaveMethodRequest(
                method_type=method_type,
                token=token,
                customer_id=customer.id,
                gateway_customer_ref=known,
                email=customer.email,
                name=customer.name.display or None,
                idempotency_key=gateway_key(self._caller, idempotency_key, method_id, "save"),
            ),
        )
        if verify is not None:
            verify(saved)
        now = self._d.clock.now()
        method = StoredPaymentMethod(
            id=method_id,
            merchant_id=customer.merchant_id,
            customer_id=customer.id,
            gateway=info.name,
            method_type=saved.method_type,
            method_ref=saved.method_ref,
            gateway_customer_ref=saved.gateway_customer_ref,
            created_at=now,
            brand=saved.brand,
            last4=saved.last4,
            exp_month=saved.exp_month,
            exp_year=saved.exp_year,
            bank_name=saved.bank_name,
        )
        with self._d.store.unit_of_work() as uow:
            uow.payment_methods.remember_gateway_customer(
                customer.merchant_id, customer.id, info.name, saved.gateway_customer_ref, now
            )
            uow.payment_methods.add(method)
        return method

    def payment_methods(
        self,
        customer_id: str,
        after: str | None = None,
        limit: int = 50,
        gateway_name: str | None = None,
    ) -> Page[StoredPaymentMethod]:
        check_limit(limit)
        name = self._info(gateway_name).name if gateway_name is not None else None
        with self._d.store.unit_of_work(readonly=True) as uow:
            customer = self._get(uow, customer_id)
            rows = uow.payment_methods.list(
                customer.merchant_id, customer.id, after, limit + 1, name
            )
            if after is not None and not rows:
                check_cursor(
                    uow.payment_methods.get(customer.merchant_id, customer.id, after) is not None
                )
        return page_of(rows, limit, lambda m: m.id)

    def remove_payment_method(self, customer_id: str, method_id: str) -> StoredPaymentMethod:
        """payhub stops offering the method; a second removal is 404."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            customer = self._get(uow, customer_id)
            method = uow.payment_methods.get(customer.merchant_id, customer.id, method_id)
            if method is None:
                raise NotFound(f"no saved payment method '{method_id}' for this customer")
            uow.payment_methods.remove(method.id, now)
        return attrs.evolve(method, removed_at=now)
