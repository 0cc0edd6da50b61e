"""The gateway-ability rules of invoice creation (spec: Invoice, Errors), checked on gateways
without those abilities. Every catalog gateway today has authorize-only, so the HTTP tests
cannot reach that branch; the rule itself is the domain's."""

from __future__ import annotations

from decimal import Decimal

import attrs
import pytest

from payhub.domain.environments import Environment
from payhub.domain.errors import FieldError
from payhub.domain.gateways import GatewayInfo
from payhub.domain.invoices import AllowedMethods, PartialPaymentMode, check_terms
from payhub.domain.money import Money
from tests.gateways.catalog_rows import gateway

TOTAL = Money(Decimal("100.00"), "USD")
STRIPE = gateway("stripe", Environment.SANDBOX)


def errors_for(
    info: GatewayInfo,
    allowed: AllowedMethods = AllowedMethods.CARD_ONLY,
    authorize_only: bool = False,
) -> list[FieldError]:
    errors: list[FieldError] = []
    check_terms(info, allowed, PartialPaymentMode.DISABLED, None, authorize_only, TOTAL, errors)
    return errors


def test_a_gateway_without_hosted_checkout_is_refused() -> None:
    info = attrs.evolve(STRIPE, hosted_checkout=False)
    [error] = errors_for(info)
    assert error.field == "gateway"
    assert "cannot take payments on payhub's pay and approval pages" in error.message
    assert errors_for(STRIPE) == []


def test_authorize_only_needs_a_gateway_that_supports_it() -> None:
    info = attrs.evolve(STRIPE, authorize_only=False)
    [error] = errors_for(info, authorize_only=True)
    assert error.field == "authorizeOnly"
    assert "does not support authorize-only" in error.message
    assert errors_for(STRIPE, authorize_only=True) == []


@pytest.mark.parametrize("allowed", [AllowedMethods.BANK_ACCOUNT_ONLY, AllowedMethods.BOTH])
def test_bank_accounts_need_an_ach_gateway(allowed: AllowedMethods) -> None:
    card_only = gateway("checkout-com", Environment.SANDBOX)
    assert not card_only.ach
    [error] = errors_for(card_only, allowed=allowed)
    assert error.field == "allowedPaymentMethods"
    assert errors_for(STRIPE, allowed=allowed) == []


def test_hosted_checkout_is_true_exactly_where_a_pay_page_driver_exists() -> None:
    from payhub_server.pages.drivers import DRIVERS
    from tests.gateways.catalog_rows import GATEWAYS, SIMULATOR

    hosted = {g.name for g in GATEWAYS if g.hosted_checkout}
    assert hosted == set(DRIVERS) - {"simulator"}
    assert {"stripe", "square", "nmi", "authorize-net", "braintree", "checkout-com", "clover",
            "usaepay", "stax"} <= hosted  # fmt: skip
    assert SIMULATOR.hosted_checkout
    for row in GATEWAYS:  # any gateway still without a driver is refused
        if not row.hosted_checkout:
            [error] = errors_for(row)
            assert error.field == "gateway"
            assert error.message.startswith(
                f"{row.display_name} cannot take payments on payhub's pay and approval"
            )
