"""Money is exact on the wire: a JSON number reaches the gateway with the digits it was sent
with, never through float; too precise or too large is refused, never rounded or charged.

Bodies are written by hand (raw bytes), so the client's own JSON encoder cannot turn a number
into a float on the way; answers are read with ``parse_float=Decimal`` for the same reason.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.domain.cardnumbers import contains_card_number
from payhub.domain.money import amount_ceiling
from tests.payments.conftest import CountingGateway

Client = TestClient[Litestar]
CEILING = amount_ceiling("USD")
wire_settings = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


class RecordingGateway(CountingGateway):
    """The simulator, keeping the exact amount of every charge it was asked for."""

    def __init__(self) -> None:
        super().__init__(SimulatorGateway())
        self.amounts: list[Decimal] = []

    def charge(self, creds: Any, request: Any) -> Any:
        self.amounts.append(request.amount.amount)
        self.calls["charge"] += 1
        return self.inner.charge(creds, request)


@pytest.fixture
def gateway() -> RecordingGateway:
    return RecordingGateway()


def charge(client: Client, shop: dict[str, str], value: str) -> Any:
    """POST a charge whose amount is the JSON text ``value`` (a number, or a quoted string)."""
    body = (
        f'{{"amount": {{"value": {value}, "currency": "USD"}}, "gatewayName": "simulator",'
        ' "paymentMethodToken": "sim_card_ok"}'
    )
    return client.post(
        "/api/payments/charge",
        content=body.encode(),
        headers={**shop, "content-type": "application/json"},
    )


def answer(response: Any) -> Any:
    return json.loads(response.content, parse_float=Decimal)


cents = st.integers(min_value=1, max_value=int(CEILING * 100))


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@wire_settings
@given(units=cents, quoted=st.booleans())
@example(units=1010, quoted=False)
@example(units=int(CEILING * 100), quoted=False)
@example(units=12345678901234, quoted=False)
def test_an_amount_reaches_the_gateway_and_comes_back_with_its_exact_digits(
    client: Client, shop: dict[str, str], gateway: RecordingGateway, units: int, quoted: bool
) -> None:
    text = format(Decimal(units).scaleb(-2), "f")
    response = charge(client, shop, f'"{text}"' if quoted else text)
    assert response.status_code == 201, response.text
    assert gateway.amounts[-1] == Decimal(text)
    assert str(gateway.amounts[-1]) == text
    assert answer(response)["amount"]["value"] == Decimal(text)
    assert f'"value":{text},'.encode() in response.content


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@wire_settings
@given(
    units=st.integers(min_value=0, max_value=10**12),
    tail=st.integers(min_value=1, max_value=10**16 - 1),
)
@example(units=1010, tail=1)  # 10.10000000000000001: a float would read it as 10.1
def test_more_digits_than_the_currency_has_are_refused_never_rounded(
    client: Client, shop: dict[str, str], gateway: RecordingGateway, units: int, tail: int
) -> None:
    text = format(Decimal(units).scaleb(-2) + Decimal(tail).scaleb(-18), "f")
    response = charge(client, shop, text)
    assert response.status_code == 400, (text, response.text)
    assert gateway.calls["charge"] == 0
    fields = {e["field"]: e["message"] for e in response.json()["errors"]}
    if "body" in fields and contains_card_number(text):
        # 13 to 19 digits in a row that pass Luhn look like a card number to the raw-card
        # guard, which refuses the body before it is decoded: refused all the same.
        assert "raw card" in fields["body"]
        return
    assert "amount.value" in fields, fields
    if Decimal(text) <= CEILING:
        assert "decimal places" in fields["amount.value"]


@pytest.mark.parametrize(
    "value",
    [
        "1000000000000000.01",
        "1000000000000.00",
        '"1000000000000000.01"',
        "1e15",
        "999999999999.999",
        "12345678901234567890.5",
    ],
)
def test_past_the_ceiling_is_refused_on_every_store(
    client: Client, shop: dict[str, str], gateway: RecordingGateway, value: str
) -> None:
    response = charge(client, shop, value)
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["field"] == "amount.value"
    assert gateway.calls["charge"] == 0


def test_the_ceiling_itself_is_charged_exactly_on_every_store(
    client: Client, shop: dict[str, str], gateway: RecordingGateway
) -> None:
    response = charge(client, shop, str(CEILING))
    assert response.status_code == 201, response.text
    got = client.get(
        f"/api/payments/simulator/transactions/{response.json()['transactionId']}", headers=shop
    )
    assert answer(got)["amount"]["value"] == CEILING
    assert gateway.amounts == [CEILING]


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("value", "exact"), [("1.01e1", "10.10"), ("25E0", "25.00"), ("5", "5.00")]
)
def test_a_json_number_in_exponent_form_is_exact_too(
    client: Client, shop: dict[str, str], gateway: RecordingGateway, value: str, exact: str
) -> None:
    response = charge(client, shop, value)
    assert response.status_code == 201, response.text
    assert str(gateway.amounts[-1]) == exact
