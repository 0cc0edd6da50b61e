"""Heartland Portico against Global Payments' own SDK (tests/gateways/heartland/contract).

The adapter's requests must have the element tree the vendor's SDK builds (the fake refuses
any other, in every Heartland test); the fake must accept what the SDK sends and answer what
the SDK reads.
"""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from decimal import Decimal

import httpx
import pytest
from globalpayments.api.entities import Transaction
from globalpayments.api.payment_methods import CreditCardData
from globalpayments.api.services import ReportingService

from payhub.adapters.gateways.heartland.adapter import HeartlandGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayStatus,
    GatewayUnavailable,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)
from tests.gateways.heartland.contract import portico
from tests.gateways.heartland.fake import CERT_KEY, NS, FakeHeartland

CREDS = GatewayCredentials(api_secret=CERT_KEY, sandbox=True)


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def q(path: str) -> str:
    return "/".join(f"{{{NS}}}{p}" for p in path.split("/"))


@pytest.fixture
def fake() -> FakeHeartland:
    return FakeHeartland()


@pytest.fixture
def heartland(fake: FakeHeartland) -> HeartlandGateway:
    return HeartlandGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def every_operation(heartland: HeartlandGateway) -> None:
    def card(token: str) -> PaymentSource:
        return PaymentSource(MethodType.CARD, token=token, gateway_customer_ref="cus_ada")

    sale = heartland.charge(
        CREDS, ChargeRequest(usd("10.00"), card("supt_visa"), True, "k1", "Order 42")
    )
    auth = heartland.charge(
        CREDS, ChargeRequest(usd("20.00"), card("supt_mastercard"), False, "k2")
    )
    heartland.capture(CREDS, auth.reference, usd("12.50"), "k3")
    heartland.refund(CREDS, sale.reference, usd("5.00"), "k4")
    heartland.status(CREDS, sale.reference)
    assert heartland.lookup(CREDS, ChargeRequest(usd("10.00"), card("x"), True, "k1")) is not None
    saved = heartland.save_payment_method(
        CREDS,
        SaveMethodRequest(MethodType.CARD, "supt_discover", "cus_ada", None, idempotency_key="s"),
    )
    other = heartland.charge(
        CREDS,
        ChargeRequest(
            usd("7.00"),
            PaymentSource(MethodType.CARD, saved_method_ref=saved.method_ref),
            False,
            "k5",
        ),
    )
    heartland.void(CREDS, other.reference, "k6")


def test_every_request_the_adapter_sends_has_the_sdks_element_tree(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    every_operation(heartland)

    assert fake.violations == []
    sent = {portico.operation(v) for v in fake.requests}
    assert sent >= {
        "CreditSale",
        "CreditAuth",
        "CreditAddToBatch",
        "CreditReturn",
        "ReportTxnDetail",
        "FindTransactions",
        "CreditAccountVerify",
        "CreditVoid",
    }
    assert sent <= set(portico.reference())


def test_a_misspelled_element_is_refused_by_the_check_and_the_fake(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    heartland.charge(
        CREDS,
        ChargeRequest(usd("10.00"), PaymentSource(MethodType.CARD, token="supt_visa"), True, "k"),
    )
    good = fake.requests[-1]
    portico.check(good)

    misspelled = copy.deepcopy(good)
    value = misspelled.find(q("Transaction/CreditSale/Block1/CardData/TokenData/TokenValue"))
    assert value is not None
    value.tag = f"{{{NS}}}TokenValu"
    with pytest.raises(portico.ContractViolation, match="TokenValu is not an element"):
        portico.check(misspelled)

    swapped = copy.deepcopy(good)
    block = swapped.find(q("Transaction/CreditSale/Block1"))
    assert block is not None
    amount, card = block.find(q("Amt")), block.find(q("CardData"))
    assert amount is not None
    assert card is not None
    block.remove(amount)
    block.append(amount)  # Amt after CardData
    with pytest.raises(portico.ContractViolation, match="Amt comes after"):
        portico.check(swapped)

    envelope = ET.Element(f"{{{portico.SOAP}}}Envelope")
    request = ET.SubElement(ET.SubElement(envelope, f"{{{portico.SOAP}}}Body"), q("PosRequest"))
    request.append(misspelled)
    with pytest.raises(GatewayUnavailable):  # Portico's schema fault is a 500
        HeartlandGateway(
            httpx.Client(
                transport=httpx.MockTransport(
                    lambda r: fake.handler(
                        httpx.Request(
                            r.method, r.url, headers=r.headers, content=ET.tostring(envelope)
                        )
                    )
                )
            )
        ).charge(
            CREDS,
            ChargeRequest(
                usd("1.00"), PaymentSource(MethodType.CARD, token="supt_mastercard"), True, "k2"
            ),
        )
    assert "TokenValu" in fake.violations[-1]


def test_the_vendors_sdk_is_served_by_the_fake_and_reads_its_answers(fake: FakeHeartland) -> None:
    with portico.sdk_talking_to(fake.handler, key=CERT_KEY):
        card = CreditCardData()
        card.token = "supt_visa"
        sale = card.charge(Decimal("10.00")).with_currency("USD").execute(portico.CONFIG)
        assert (sale.response_code, sale.transaction_id) == (
            "00",
            fake.of_service("CreditSale")[0].id,
        )

        other = CreditCardData()
        other.token = "supt_mastercard"
        auth = other.authorize(Decimal("20.00")).with_currency("USD").execute(portico.CONFIG)
        assert auth.response_code == "00"
        capture = Transaction.from_id(auth.transaction_id).capture(Decimal("12.50"))
        assert capture.execute(portico.CONFIG).response_code == "00"
        refund = Transaction.from_id(sale.transaction_id).refund(Decimal("5.00"))
        assert refund.with_currency("USD").execute(portico.CONFIG).response_code == "00"
        void = Transaction.from_id(auth.transaction_id).void().execute(portico.CONFIG)
        assert void.response_code == "00"

        fresh = CreditCardData()
        fresh.token = "supt_discover"
        verified = fresh.verify().with_request_multi_use_token(True).execute(portico.CONFIG)
        assert verified.token in fake.multi_use

        detail = ReportingService.transaction_detail(sale.transaction_id).execute(portico.CONFIG)
        assert detail.transaction_id == sale.transaction_id

        declined = CreditCardData()
        declined.token = "supt_insufficient"
        answer = declined.charge(Decimal("10.00")).with_currency("USD").execute(portico.CONFIG)
        assert (answer.response_code, answer.response_message) == ("51", "DECLINE")

    assert fake.violations == []  # the fake's check accepts the vendor's own requests
    adapter = HeartlandGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))
    assert adapter.status(CREDS, sale.transaction_id).status is GatewayStatus.CAPTURED
