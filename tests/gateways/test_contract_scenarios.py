"""The shared gateway scenarios, run against every gateway's fake from one module.

Each gateway joins with a driver (``tests/gateways/scenarios/drivers.py``) saying how its fake
approves, declines each family, and vaults; transport failures are made the same way for all
(``Switchboard``). Per-gateway test files keep only what is specific to that gateway: its wire
format, its idempotency mechanism, its own error codes, its hosts and its open questions.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    GatewayTimeout,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
)
from payhub.ports import FindsLostCharges
from tests.gateways.scenarios.base import FAMILIES, Driver
from tests.gateways.scenarios.drivers import DRIVERS


@pytest.fixture(params=sorted(DRIVERS))
def driver(request: pytest.FixtureRequest) -> Iterator[Driver]:
    reason = DRIVERS[request.param].skips.get(request.node.originalname)
    if reason is not None:
        pytest.skip(f"{request.param}: {reason}")
    made = DRIVERS[request.param]()
    yield made
    made.close()


def sale(driver: Driver, amount: str = "10.00", *, capture: bool = True, key: str = "k-1",
         token: str | None = None) -> ChargeRequest:  # fmt: skip
    source = PaymentSource(MethodType.CARD, token=token or driver.card_token())
    return ChargeRequest(driver.money(amount), source, capture, key)


def test_an_approved_sale_is_captured_and_reads_back(driver: Driver) -> None:
    result = driver.gateway.charge(driver.creds, sale(driver, "10.00"))

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, driver.money("10.00"))
    assert result.reference
    assert result.decline_code is None
    assert driver.gateway.status(driver.creds, result.reference).status is GatewayStatus.CAPTURED


@pytest.mark.parametrize("family", FAMILIES)
def test_each_decline_family_is_declined_with_its_code(driver: Driver, family: str) -> None:
    token = driver.decline_token(family)
    if token is None:
        pytest.skip(f"the {driver.name} fake has no card declining as {family}")

    with pytest.raises(Declined) as declined:
        driver.gateway.charge(driver.creds, sale(driver, "10.00", token=token))

    assert declined.value.decline_code == family
    assert declined.value.gateway == driver.name
    assert declined.value.gateway_message  # the gateway's own words survive redaction
    assert token not in str(declined.value)
    assert token not in (declined.value.gateway_message or "")


def test_rejected_credentials_are_reported_as_such(driver: Driver) -> None:
    with pytest.raises(GatewayCredentialsRejected) as rejected:
        driver.gateway.charge(driver.bad_creds, sale(driver))

    assert driver.bad_creds.api_secret not in str(rejected.value)
    assert driver.bad_creds.api_secret not in (rejected.value.gateway_message or "")


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_is_gateway_unavailable(driver: Driver, status: int) -> None:
    driver.switchboard.mode, driver.switchboard.status = "5xx", status

    with pytest.raises(GatewayUnavailable) as unavailable:
        driver.gateway.charge(driver.creds, sale(driver))
    assert unavailable.value.retry_safe
    assert driver.charges_made() in (None, 0)


def test_an_unreachable_gateway_is_gateway_unavailable(driver: Driver) -> None:
    driver.switchboard.mode = "unreachable"

    with pytest.raises(GatewayUnavailable, match="ConnectError"):
        driver.gateway.charge(driver.creds, sale(driver))


def test_a_timeout_is_gateway_timeout(driver: Driver) -> None:
    driver.switchboard.mode = "timeout"

    with pytest.raises(GatewayTimeout):
        driver.gateway.charge(driver.creds, sale(driver))


def test_a_malformed_answer_is_a_plain_gateway_error_that_never_echoes_it(driver: Driver) -> None:
    driver.switchboard.mode = "malformed"

    with pytest.raises(GatewayError) as failed:
        driver.gateway.charge(driver.creds, sale(driver))

    assert type(failed.value) is GatewayError  # not a decline, not "try again"
    assert "<html" not in str(failed.value)
    assert "<html" not in (failed.value.gateway_message or "")


def test_authorize_then_capture_in_full_then_refund(driver: Driver) -> None:
    auth = driver.gateway.charge(driver.creds, sale(driver, "20.00", capture=False))
    assert (auth.status, auth.amount) == (GatewayStatus.AUTHORIZED, driver.money("20.00"))

    captured = driver.gateway.capture(driver.creds, auth.reference, driver.money("20.00"), "c-1")
    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, driver.money("20.00"))

    driver.settle()
    refunded = driver.gateway.refund(driver.creds, auth.reference, driver.money("20.00"), "r-1")
    assert (refunded.status, refunded.amount) == (GatewayStatus.REFUNDED, driver.money("20.00"))


def test_a_partial_capture_takes_only_that_amount(driver: Driver) -> None:
    if not driver.info.partial_capture:
        pytest.skip(f"{driver.name} captures only the authorized amount (catalog)")
    auth = driver.gateway.charge(driver.creds, sale(driver, "20.00", capture=False))

    captured = driver.gateway.capture(driver.creds, auth.reference, driver.money("12.50"), "c-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, driver.money("12.50"))


def test_a_sale_is_refunded_in_part_then_in_the_rest(driver: Driver) -> None:
    charged = driver.gateway.charge(driver.creds, sale(driver, "30.00"))
    driver.settle()

    first = driver.gateway.refund(driver.creds, charged.reference, driver.money("10.00"), "r-1")
    rest = driver.gateway.refund(driver.creds, charged.reference, driver.money("20.00"), "r-2")

    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, driver.money("10.00"))
    assert (rest.status, rest.amount) == (GatewayStatus.REFUNDED, driver.money("20.00"))


def test_a_void_releases_an_authorization(driver: Driver) -> None:
    auth = driver.gateway.charge(driver.creds, sale(driver, "15.00", capture=False))

    voided = driver.gateway.void(driver.creds, auth.reference, "v-1")

    assert voided.status is GatewayStatus.VOIDED
    assert driver.gateway.status(driver.creds, auth.reference).status is GatewayStatus.VOIDED


def test_a_vaulted_card_is_charged_again(driver: Driver) -> None:
    request = SaveMethodRequest(
        MethodType.CARD,
        driver.save_token(),
        "cus_ada",
        None,
        email="ada@example.com",
        name="Ada Lovelace",
        idempotency_key="save-1",
    )
    method = driver.gateway.save_payment_method(driver.creds, request)
    assert method.method_ref
    assert method.method_type is MethodType.CARD
    assert method.last4 is None or (len(method.last4) == 4 and method.last4.isdigit())

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=method.method_ref,
        gateway_customer_ref=method.gateway_customer_ref,
    )
    for n, amount in enumerate(("11.00", "12.00")):
        result = driver.gateway.charge(
            driver.creds, ChargeRequest(driver.money(amount), source, True, f"saved-{n}")
        )
        assert (result.status, result.amount) == (GatewayStatus.CAPTURED, driver.money(amount))


def test_an_unknown_token_is_an_unusable_payment_method(driver: Driver) -> None:
    with pytest.raises(PaymentMethodInvalid):
        driver.gateway.charge(driver.creds, sale(driver, token="never-issued-token-0"))


def test_a_charge_whose_answer_was_lost_is_found_and_never_made_twice(driver: Driver) -> None:
    request = sale(driver, "17.00", key="lost-1")
    driver.switchboard.mode = "lost"
    with pytest.raises(GatewayTimeout):
        driver.gateway.charge(driver.creds, request)

    if isinstance(driver.gateway, FindsLostCharges):
        found = driver.gateway.lookup(driver.creds, request)
        assert found is not None
        assert (found.status, found.amount) == (GatewayStatus.CAPTURED, driver.money("17.00"))
        assert driver.gateway.lookup(driver.creds, sale(driver, "17.00", key="never-sent")) is None
    else:  # native idempotency: the same key is answered with the first charge
        before = driver.charges_made()
        again = driver.gateway.charge(driver.creds, request)
        assert (again.status, again.amount) == (GatewayStatus.CAPTURED, driver.money("17.00"))
        assert driver.charges_made() == before
