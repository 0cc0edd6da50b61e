"""Registers (virtual terminals) at a merchant's locations, and the sales made at them.

A register belongs to one location. Creating or switching a register on needs its location
on; switching a location off is refused while it has an active register (spec: Location rule
1, ``check_deactivation``). Register changes take turns with location changes on the
merchant's location-settings row, so the rule holds under concurrency.

A sale prices the picked products again from the catalog (``quote_sale``), at the location's
rate, else the merchant default (rule 2), and charges the total once: the sale key the sale
form was made with is the gateway key's source, so the same form sent twice, or again after
a timeout, finds the first charge instead of making a second (``Payments.charge_source``).
"""

from __future__ import annotations

import builtins
from decimal import Decimal

import attrs

from payhub.domain.catalog import Category, Product
from payhub.domain.customers import Customer, StoredPaymentMethod
from payhub.domain.errors import Conflict, FieldError, NotFound, ValidationError
from payhub.domain.fields import raise_if_any
from payhub.domain.locations import Location, Register, effective_tax_rate_id
from payhub.domain.payments import (
    MethodType,
    PaymentSource,
    Transaction,
    TxStatus,
)
from payhub.domain.register import Pick, SaleQuote, clean_register_name, quote_sale
from payhub.ports import Gateway, UnitOfWork
from payhub.services import idempotency
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant
from payhub.services.payments import Payments, gateway_key

CATALOG_MAX = 500
DEFAULT_CURRENCY = "USD"
DESCRIPTION_MAX = 500


@attrs.frozen
class RegisterView:
    register: Register
    location: Location


@attrs.frozen
class Till:
    """What the register's sale page shows: the active categories in their order (each with
    its active products), products without an active category, and the rate that applies."""

    view: RegisterView
    categories: tuple[tuple[Category, tuple[Product, ...]], ...]
    uncategorised: tuple[Product, ...]
    currency: str
    tax_percent: Decimal | None
    tax_rate_name: str | None


@attrs.frozen
class SalePayment:
    """How the sale is paid: a fresh token from the gateway's hosted fields, or a customer's
    saved method."""

    method_type: MethodType = MethodType.CARD
    gateway: str | None = None
    token: str | None = attrs.field(default=None, repr=False)
    customer_id: str | None = None
    payment_method_id: str | None = None


@attrs.frozen
class Sale:
    quote: SaleQuote
    transaction: Transaction
    replayed: bool  # the same sale form again: the first sale's charge, nothing new


class Registers:
    def __init__(
        self, deps: Deps, caller: Caller, reference: str, gateways: dict[str, Gateway]
    ) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference
        self._gateways = gateways

    # --- helpers ---------------------------------------------------------------------------

    def _merchant_id(self, uow: UnitOfWork) -> str:
        return find_merchant(uow, self._caller, self._reference).id

    @staticmethod
    def _location(uow: UnitOfWork, merchant_id: str, location_id: str) -> Location:
        location = uow.locations.get(merchant_id, location_id)
        if location is None:
            raise NotFound(f"no location '{location_id}' for this merchant")
        return location

    def _view(self, uow: UnitOfWork, merchant_id: str, register_id: str) -> RegisterView:
        register = uow.registers.get(merchant_id, register_id)
        if register is None:
            raise NotFound(f"no register '{register_id}' for this merchant")
        return RegisterView(register, self._location(uow, merchant_id, register.location_id))

    # --- registers -------------------------------------------------------------------------

    def list(self, location_id: str | None = None) -> list[RegisterView]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            if location_id is not None:
                self._location(uow, merchant_id, location_id)
            locations: dict[str, Location] = {}
            views = []
            for register in uow.registers.list(merchant_id, location_id):
                if register.location_id not in locations:
                    locations[register.location_id] = self._location(
                        uow, merchant_id, register.location_id
                    )
                views.append(RegisterView(register, locations[register.location_id]))
            return views

    def get(self, register_id: str) -> RegisterView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._view(uow, self._merchant_id(uow), register_id)

    def create(self, location_id: str, name: str) -> RegisterView:
        """A new, active register at an active location (409 for a switched-off one)."""
        errors: builtins.list[FieldError] = []
        clean = clean_register_name(name, errors)
        raise_if_any(errors)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            uow.locations.lock_settings(merchant_id, now)
            location = self._location(uow, merchant_id, location_id)
            if not location.active:
                raise Conflict(f"location '{location.name}' is switched off; switch it on first")
            register = Register(
                id=self._d.new_id("reg"),
                merchant_id=merchant_id,
                location_id=location.id,
                name=clean,
                active=True,
                created_at=now,
            )
            uow.registers.add(register)
            return RegisterView(register, location)

    def rename(self, register_id: str, name: str) -> RegisterView:
        errors: builtins.list[FieldError] = []
        clean = clean_register_name(name, errors)
        raise_if_any(errors)
        with self._d.store.unit_of_work() as uow:
            view = self._view(uow, self._merchant_id(uow), register_id)
            register = attrs.evolve(view.register, name=clean)
            uow.registers.save(register)
            return RegisterView(register, view.location)

    def set_active(self, register_id: str, active: bool) -> RegisterView:
        """Switch a register off (always allowed) or on (its location must be on: 409)."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            uow.locations.lock_settings(merchant_id, now)
            view = self._view(uow, merchant_id, register_id)
            if active and not view.location.active:
                raise Conflict(
                    f"location '{view.location.name}' is switched off; switch it on before"
                    " its registers"
                )
            register = attrs.evolve(view.register, active=active)
            uow.registers.save(register)
            return RegisterView(register, view.location)

    # --- the till --------------------------------------------------------------------------

    def _open(self, uow: UnitOfWork, merchant_id: str, register_id: str) -> RegisterView:
        view = self._view(uow, merchant_id, register_id)
        if not view.register.active:
            raise Conflict(f"register '{view.register.name}' is switched off")
        if not view.location.active:
            raise Conflict(f"location '{view.location.name}' is switched off")
        return view

    def _till(self, uow: UnitOfWork, merchant_id: str, view: RegisterView) -> Till:
        categories = sorted(
            uow.categories.list(merchant_id, None, CATALOG_MAX, False),
            key=lambda c: (c.sort_order, c.name.casefold(), c.id),
        )
        products = [
            p for p in uow.products.list(merchant_id, None, CATALOG_MAX, None, False) if p.active
        ]
        products.sort(key=lambda p: (p.name.casefold(), p.id))
        shown = {c.id for c in categories if c.active}
        grouped = tuple(
            (c, tuple(p for p in products if p.category_id == c.id)) for c in categories if c.active
        )
        loose = tuple(p for p in products if p.category_id is None)
        default = uow.tax_rates.settings(merchant_id).default_tax_rate_id
        candidates = {i for i in (view.location.tax_rate_id, default) if i}
        active = uow.tax_rates.active_ids(merchant_id, candidates) if candidates else set()
        rate_id = effective_tax_rate_id(view.location.tax_rate_id, default, active)
        rate = uow.tax_rates.get(merchant_id, rate_id) if rate_id else None
        currencies = {p.unit_price.currency for p in products if p.category_id in shown or (
            p.category_id is None)}  # fmt: skip
        currency = next(iter(currencies)) if len(currencies) == 1 else DEFAULT_CURRENCY
        return Till(
            view,
            grouped,
            loose,
            currency,
            rate.percent if rate else None,
            rate.name if rate else None,
        )

    def till(self, register_id: str) -> Till:
        """The sale page's catalog for an active register at an active location."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            return self._till(uow, merchant_id, self._open(uow, merchant_id, register_id))

    @staticmethod
    def _quote(till: Till, picks: builtins.list[Pick]) -> SaleQuote:
        offered = {p.id: p for _, group in till.categories for p in group}
        offered.update({p.id: p for p in till.uncategorised})
        return quote_sale(picks, offered, till.currency, till.tax_percent, till.tax_rate_name)

    def quote(self, register_id: str, picks: builtins.list[Pick]) -> SaleQuote:
        """The picks priced from the catalog as it is now (never from what a form says)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            till = self._till(uow, merchant_id, self._open(uow, merchant_id, register_id))
            return self._quote(till, picks)

    def customers_with_methods(
        self, limit: int = 50
    ) -> builtins.list[tuple[Customer, builtins.list[StoredPaymentMethod]]]:
        """The newest customers that have a saved method, with their methods (the register's
        "saved method" choice)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            found = []
            for customer in uow.customers.list(merchant_id, None, limit):
                methods = uow.payment_methods.list(merchant_id, customer.id, None, 20)
                if methods:
                    found.append((customer, methods))
            return found

    # --- the sale --------------------------------------------------------------------------

    def sell(
        self, register_id: str, picks: builtins.list[Pick], payment: SalePayment, sale_key: str
    ) -> Sale:
        """Charge the sale once per ``sale_key`` (made with the sale form, carried on every
        retry). The same key for another sale is a 409; a decline raises the gateway's error
        (the charge is recorded Failed and the form needs a new key for another try)."""
        key = idempotency.check_key(sale_key)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            view = self._open(uow, merchant.id, register_id)
            till = self._till(uow, merchant.id, view)
            quote = self._quote(till, picks)
            gkey = gateway_key(self._caller, key, "", f"register-sale:{view.register.id}")
            earlier = uow.transactions.get_by_gateway_key(merchant.id, gkey)
            source, gateway, method = self._source(uow, merchant.id, payment)
        if earlier is not None:
            if earlier.amount != quote.totals.total:
                raise Conflict("this sale form was already used for another sale; start a new sale")
            if earlier.status not in (TxStatus.PENDING, TxStatus.UNKNOWN):
                return Sale(quote, earlier, replayed=True)
        payments = Payments(self._d, self._caller, self._reference, self._gateways)
        if method is None:
            info = self._d.catalog.get(gateway, self._caller.environment)
            Payments.check_method(info, source.method_type, True)
        description = f"Register {view.register.name}: {quote.summary}"[:DESCRIPTION_MAX]
        charged = payments.charge_source(
            gateway_name=gateway,
            amount=quote.totals.total,
            source=source,
            capture=True,
            gateway_key=gkey,
            location_id=view.location.id,
            customer_id=payment.customer_id if method else None,
            payment_method_id=method.id if method else None,
            description=description,
        )
        return Sale(quote, charged.transaction, replayed=earlier is not None)

    def sale(self, register_id: str, transaction_id: str) -> tuple[RegisterView, Transaction]:
        """A charge made at this register's location (its receipt page); 404 otherwise."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            view = self._view(uow, merchant_id, register_id)
            tx = uow.transactions.get(merchant_id, transaction_id)
            if tx is None or tx.location_id != view.location.id:
                raise NotFound(f"no sale '{transaction_id}' at this register")
            return view, tx

    def _source(
        self, uow: UnitOfWork, merchant_id: str, payment: SalePayment
    ) -> tuple[PaymentSource, str, StoredPaymentMethod | None]:
        if payment.payment_method_id:
            method = uow.payment_methods.get(
                merchant_id, payment.customer_id or "", payment.payment_method_id
            )
            if method is None:
                raise ValidationError.for_field(
                    "savedMethod", "is not a saved payment method of this merchant's customer"
                )
            source = PaymentSource(
                method.method_type,
                saved_method_ref=method.method_ref,
                gateway_customer_ref=method.gateway_customer_ref,
            )
            return source, method.gateway, method
        token = (payment.token or "").strip()
        if not token:
            raise ValidationError.for_field(
                "paymentMethodToken",
                "enter the card in the gateway's fields, or choose a customer's saved method",
            )
        if not payment.gateway:
            raise ValidationError.for_field("gateway", "choose the gateway to charge")
        return PaymentSource(payment.method_type, token=token), payment.gateway, None
