"""The CyberSource adapter against the in-memory fake of its REST API (``fake.py``),
and once through payhub's HTTP API."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.cybersource.adapter import (
    CODE_MAX,
    CyberSourceGateway,
    reference_code,
    signed_headers,
)
from payhub.adapters.system import FixedClock
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from payhub.ports import FindsLostCharges
from tests.conftest import Account
from tests.gateways.cybersource.fake import KEY_ID, MERCHANT_ID, SECRET, FakeCyberSource, token
from tests.gateways.support import hub_on, usd

OK = token("ok")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)


@pytest.fixture
def fake() -> FakeCyberSource:
    return FakeCyberSource()


@pytest.fixture
def gateway(fake: FakeCyberSource) -> CyberSourceGateway:
    return CyberSourceGateway(fake.client(), now=lambda: NOW)


@pytest.fixture
def creds() -> GatewayCredentials:
    return GatewayCredentials(
        SECRET, sandbox=True, fields={"merchantId": MERCHANT_ID, "keyId": KEY_ID}
    )


def card(
    amount: Money, *, jwt: str = OK, capture: bool = True, key: str = "key-1"
) -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=jwt), capture, key, "Order 7")


# --- charges -------------------------------------------------------------------------------


def test_sale_is_an_authorization_with_capture(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    jwt = fake.transient_token()

    result = gateway.charge(creds, card(usd("25.05"), jwt=jwt))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("25.05")
    (sent,) = fake.bodies("POST", "/pts/v2/payments")
    assert sent["processingInformation"] == {"capture": True}
    assert sent["tokenInformation"] == {"transientTokenJwt": jwt}
    assert sent["orderInformation"]["amountDetails"] == {"totalAmount": "25.05", "currency": "USD"}
    assert sent["clientReferenceInformation"] == {"code": "key-1", "comments": "Order 7"}
    assert fake.transactions[result.reference]["apps"] == {"ics_auth": "1", "ics_bill": "1"}
    assert result.support == {"http_status": "201", "cybersource_status": "AUTHORIZED"}


def test_requests_are_signed_with_http_signature(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("1.00")))

    (request,) = fake.requests
    assert str(request.url) == "https://apitest.cybersource.com/pts/v2/payments"
    assert request.headers["v-c-merchant-id"] == MERCHANT_ID
    assert request.headers["Host"] == "apitest.cybersource.com"
    assert request.headers["Date"] == "Mon, 23 Nov 2026 10:00:00 GMT"
    digest = base64.b64encode(hashlib.sha256(request.content).digest()).decode()
    assert request.headers["Digest"] == f"SHA-256={digest}"
    signature = request.headers["Signature"]
    assert signature.startswith(f'keyid="{KEY_ID}", algorithm="HmacSHA256", ')
    assert 'headers="host date request-target digest v-c-merchant-id"' in signature


def test_signature_matches_a_hand_computed_one() -> None:
    secret = base64.b64encode(b"k").decode()
    headers = signed_headers(
        merchant_id="m1",
        key_id="kid",
        secret=secret,
        host="apitest.cybersource.com",
        method="GET",
        path="/tss/v2/transactions/1",
        body=None,
        date=NOW,
    )
    text = (
        "host: apitest.cybersource.com\ndate: Mon, 23 Nov 2026 10:00:00 GMT\n"
        "request-target: get /tss/v2/transactions/1\nv-c-merchant-id: m1"
    )
    expected = base64.b64encode(hmac.new(b"k", text.encode(), hashlib.sha256).digest()).decode()
    assert "Digest" not in headers
    assert headers["Signature"] == (
        f'keyid="kid", algorithm="HmacSHA256", headers="host date request-target'
        f' v-c-merchant-id", signature="{expected}"'
    )


def test_authorize_then_capture_in_full(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.bodies("POST", "/pts/v2/payments")[0]["processingInformation"]["capture"] is False

    captured = gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.reference == auth.reference
    (sent,) = fake.bodies("POST", f"/pts/v2/payments/{auth.reference}/captures")
    assert sent["orderInformation"]["amountDetails"]["totalAmount"] == "40.00"
    assert sent["clientReferenceInformation"]["code"] == "cap-1"
    assert gateway.status(creds, auth.reference).status is GatewayStatus.CAPTURED


def test_partial_capture(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    captured = gateway.capture(creds, auth.reference, usd("32.50"), "cap-1")

    assert captured.amount == usd("32.50")
    assert fake.transactions[auth.reference]["captured"] == Decimal("32.50")


def test_capturing_twice_is_refused(gateway: CyberSourceGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")

    with pytest.raises(GatewayError) as raised:
        gateway.capture(creds, auth.reference, usd("40.00"), "cap-2")

    assert type(raised.value) is GatewayError
    assert "INVALID_DATA" in str(raised.value)


def test_refund_a_sale_in_parts_until_refunded(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    part = gateway.refund(creds, sale.reference, usd("20.00"), "ref-1")
    assert part.status is GatewayStatus.REFUNDED
    assert part.amount == usd("20.00")
    assert fake.transactions[part.reference]["apps"] == {"ics_credit": "1"}
    assert gateway.status(creds, sale.reference).status is GatewayStatus.CAPTURED

    gateway.refund(creds, sale.reference, usd("30.00"), "ref-2")

    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED
    bodies = fake.bodies("POST", f"/pts/v2/payments/{sale.reference}/refunds")
    assert [b["orderInformation"]["amountDetails"]["totalAmount"] for b in bodies] == [
        "20.00",
        "30.00",
    ]


def test_a_separately_captured_authorization_is_refunded_through_its_capture(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")
    (capture_id,) = fake.transactions[auth.reference]["related"]

    refund = gateway.refund(creds, auth.reference, usd("40.00"), "ref-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert fake.bodies("POST", f"/pts/v2/captures/{capture_id}/refunds")
    assert gateway.status(creds, auth.reference).status is GatewayStatus.REFUNDED


def test_refunding_more_than_is_left_is_refused(
    gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    with pytest.raises(GatewayError, match="INVALID_AMOUNT"):
        gateway.refund(creds, sale.reference, usd("60.00"), "ref-1")


def test_refunding_an_uncaptured_authorization_is_refused(
    gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("5.00"), capture=False))

    with pytest.raises(GatewayError, match="no capture"):
        gateway.refund(creds, auth.reference, usd("5.00"), "ref-1")


def test_void_reverses_the_whole_authorization(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    voided = gateway.void(creds, auth.reference, "void-1")

    assert voided.status is GatewayStatus.VOIDED
    assert voided.amount == usd("40.00")
    (sent,) = fake.bodies("POST", f"/pts/v2/payments/{auth.reference}/reversals")
    assert sent["reversalInformation"]["amountDetails"] == {"totalAmount": "40.00"}
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError):
        gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")


def test_status_of_an_authorization_and_of_a_decline(
    gateway: CyberSourceGateway, creds: GatewayCredentials, fake: FakeCyberSource
) -> None:
    auth = gateway.charge(creds, card(usd("12.34"), capture=False))
    with pytest.raises(Declined):
        gateway.charge(creds, card(usd("1.00"), jwt=token("declined"), key="k2"))
    declined_id = fake.payments()[-1]["id"]

    status = gateway.status(creds, auth.reference)

    assert (status.status, status.amount, status.reference) == (
        GatewayStatus.AUTHORIZED,
        usd("12.34"),
        auth.reference,
    )
    assert fake.requests[-1].method == "GET"
    assert gateway.status(creds, declined_id).status is GatewayStatus.DECLINED


def test_status_of_an_unknown_reference_is_a_gateway_error(
    gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError) as raised:
        gateway.status(creds, "123")

    assert type(raised.value) is GatewayError


def test_a_reference_cannot_change_the_endpoint(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError):
        gateway.status(creds, "../../pts/v2/payments")

    assert fake.requests[-1].url.raw_path == b"/tss/v2/transactions/..%2F..%2Fpts%2Fv2%2Fpayments"


def test_a_review_hold_is_pending(gateway: CyberSourceGateway, creds: GatewayCredentials) -> None:
    result = gateway.charge(creds, card(usd("5.00"), jwt=token("review")))

    assert result.status is GatewayStatus.PENDING


# --- vault ---------------------------------------------------------------------------------


def test_save_a_card_creates_customer_and_instrument_and_it_can_be_charged(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD,
            fake.transient_token(),
            customer_id="cus_42",
            gateway_customer_ref=None,
            email="ada@example.com",
            idempotency_key="save-1",
        ),
    )

    assert saved.gateway_customer_ref in fake.customers
    assert saved.method_ref in fake.instruments
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("visa", "1111", 12, 2031)
    (sent,) = fake.bodies("POST", "/pts/v2/payments")
    assert sent["processingInformation"] == {
        "capture": False,
        "actionList": ["TOKEN_CREATE"],
        "actionTokenTypes": ["customer", "paymentInstrument"],
    }
    assert sent["orderInformation"]["amountDetails"]["totalAmount"] == "0.00"
    assert fake.customers[saved.gateway_customer_ref]["merchantCustomerId"] == "cus_42"

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.99"), source, True, "key-9"))

    assert result.status is GatewayStatus.CAPTURED
    assert fake.bodies("POST", "/pts/v2/payments")[-1]["paymentInformation"] == {
        "customer": {"id": saved.gateway_customer_ref},
        "paymentInstrument": {"id": saved.method_ref},
    }


def test_save_a_second_card_for_a_known_customer(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    first = gateway.save_payment_method(
        creds, SaveMethodRequest(MethodType.CARD, OK, "cus_7", None, idempotency_key="s-1")
    )
    second = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD, OK, "cus_7", first.gateway_customer_ref, idempotency_key="s-2"
        ),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert len(fake.customers) == 1
    assert len(fake.instruments) == 2
    sent = fake.bodies("POST", "/pts/v2/payments")[-1]
    assert sent["processingInformation"]["actionTokenTypes"] == ["paymentInstrument"]


def test_saving_a_used_token_is_payment_method_invalid(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    jwt = fake.transient_token()
    gateway.charge(creds, card(usd("1.00"), jwt=jwt))

    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(creds, SaveMethodRequest(MethodType.CARD, jwt, "cus_1", None))


def test_saving_a_declined_card_is_declined(
    gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(Declined) as raised:
        gateway.save_payment_method(
            creds, SaveMethodRequest(MethodType.CARD, token("expired"), "cus_1", None)
        )

    assert raised.value.decline_code == "expired_card"


def test_a_saved_card_of_another_customer_is_payment_method_invalid(
    gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    saved = gateway.save_payment_method(creds, SaveMethodRequest(MethodType.CARD, OK, "c", None))
    source = PaymentSource(
        MethodType.CARD, saved_method_ref=saved.method_ref, gateway_customer_ref="NOT-THEIRS"
    )

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, ChargeRequest(usd("1.00"), source, True, "k"))


def test_bank_accounts_are_refused_before_any_call(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(ValueError, match="cards only"):
        gateway.charge(
            creds,
            ChargeRequest(usd("1.00"), PaymentSource(MethodType.BANK_ACCOUNT, token=OK), True, "k"),
        )
    with pytest.raises(ValueError, match="cards only"):
        gateway.save_payment_method(
            creds, SaveMethodRequest(MethodType.BANK_ACCOUNT, OK, "cus_1", None)
        )

    assert fake.requests == []


# --- failures ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "decline_code"),
    [
        ("insufficient", "insufficient_funds"),
        ("expired", "expired_card"),
        ("cvn", "incorrect_cvc"),
        ("stolen", "fraudulent"),
        ("declined", "generic_decline"),
        ("issuer-down", "processing_error"),
    ],
)
def test_declines_carry_a_normalised_code(
    gateway: CyberSourceGateway, creds: GatewayCredentials, name: str, decline_code: str
) -> None:
    with pytest.raises(Declined) as raised:
        gateway.charge(creds, card(usd("10.00"), jwt=token(name)))

    assert raised.value.decline_code == decline_code
    assert raised.value.gateway == "cybersource"
    assert decline_code in str(raised.value)


@pytest.mark.parametrize("jwt", [token("nonsense"), "not-a-jwt"])
def test_an_unknown_token_is_payment_method_invalid(
    gateway: CyberSourceGateway, creds: GatewayCredentials, jwt: str
) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, card(usd("10.00"), jwt=jwt))


def test_a_transient_token_is_single_use(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    jwt = fake.transient_token()
    gateway.charge(creds, card(usd("10.00"), jwt=jwt, key="a"))

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, card(usd("10.00"), jwt=jwt, key="b"))


@pytest.mark.parametrize(
    "fields",
    [
        {"merchantId": MERCHANT_ID, "keyId": "another-key"},
        {"merchantId": "someone_else", "keyId": KEY_ID},
    ],
)
def test_wrong_credentials_are_rejected(
    gateway: CyberSourceGateway, fields: dict[str, str]
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(GatewayCredentials(SECRET, sandbox=True, fields=fields), card(usd("1.00")))


def test_a_wrong_secret_is_rejected_and_never_echoed(gateway: CyberSourceGateway) -> None:
    wrong = base64.b64encode(b"a-secret-that-is-wrong").decode()
    creds = GatewayCredentials(
        wrong, sandbox=True, fields={"merchantId": MERCHANT_ID, "keyId": KEY_ID}
    )

    with pytest.raises(GatewayCredentialsRejected) as raised:
        gateway.charge(creds, card(usd("1.00")))

    assert wrong not in str(raised.value)


@pytest.mark.parametrize(
    ("secret", "fields"),
    [("not base64!", {"merchantId": MERCHANT_ID, "keyId": KEY_ID}), (SECRET, {})],
)
def test_unusable_credentials_never_reach_cybersource(
    fake: FakeCyberSource, gateway: CyberSourceGateway, secret: str, fields: dict[str, str]
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as raised:
        gateway.charge(GatewayCredentials(secret, sandbox=True, fields=fields), card(usd("1.00")))

    assert fake.requests == []
    assert secret not in str(raised.value)


def test_sandbox_credentials_never_reach_the_live_host(creds: GatewayCredentials) -> None:
    live = FakeCyberSource(sandbox=False)

    with pytest.raises(GatewayCredentialsRejected):
        CyberSourceGateway(live.client()).charge(creds, card(usd("1.00")))

    assert live.transactions == {}


def test_live_credentials_use_the_live_host() -> None:
    live = FakeCyberSource(sandbox=False)
    creds = GatewayCredentials(
        SECRET, sandbox=False, fields={"merchantId": MERCHANT_ID, "keyId": KEY_ID}
    )

    result = CyberSourceGateway(live.client()).charge(creds, card(usd("1.00")))

    assert result.status is GatewayStatus.CAPTURED
    assert str(live.requests[0].url) == "https://api.cybersource.com/pts/v2/payments"


def test_a_server_error_is_gateway_unavailable(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    fake.fail_next()

    with pytest.raises(GatewayUnavailable) as raised:
        gateway.charge(creds, card(usd("10.00")))

    assert raised.value.retry_safe
    assert fake.transactions == {}


def test_a_body_that_is_not_json_is_a_gateway_error(creds: GatewayCredentials) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>maintenance</html>")

    gateway = CyberSourceGateway(httpx.Client(transport=httpx.MockTransport(handler)))

    with pytest.raises(GatewayError, match="unexpected shape"):
        gateway.charge(creds, card(usd("10.00")))


def test_a_token_echoed_in_an_error_is_redacted(creds: GatewayCredentials) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = {
            "status": "INVALID_REQUEST",
            "reason": "INVALID_DATA",
            "message": f"Token {OK} is invalid",
            "details": [{"field": "tokenInformation.transientTokenJwt", "reason": "INVALID_DATA"}],
        }
        return httpx.Response(400, json=body)

    gateway = CyberSourceGateway(httpx.Client(transport=httpx.MockTransport(handler)))

    with pytest.raises(PaymentMethodInvalid) as raised:
        gateway.charge(creds, card(usd("1.00")))

    message = raised.value.gateway_message or ""
    # the kit's one policy blanks each token-looking part of the JWT (its dots stay)
    assert message.startswith("Token [redacted]")
    assert message.endswith(" is invalid")
    assert not any(part in message for part in OK.split("."))
    assert OK not in str(raised.value)


@pytest.mark.parametrize("name", ["declined", "nonsense"])
def test_no_token_or_secret_in_errors_or_support(
    gateway: CyberSourceGateway, creds: GatewayCredentials, name: str
) -> None:
    jwt = token(name)
    with pytest.raises(GatewayError) as raised:
        gateway.charge(creds, card(usd("10.00"), jwt=jwt))

    text = f"{raised.value} {raised.value.gateway_message}"
    assert jwt not in text
    assert SECRET not in text
    ok = gateway.charge(creds, card(usd("10.00"), key="other"))
    assert OK not in json.dumps(ok.support)
    assert SECRET not in json.dumps(ok.support)


# --- idempotency: no key at CyberSource, a lookup by clientReferenceInformation.code --------


def test_lookup_finds_a_charge_whose_answer_was_lost(
    fake: FakeCyberSource, gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    assert isinstance(gateway, FindsLostCharges)
    request = card(usd("10.00"), key="lost-1")
    first = gateway.charge(creds, request)

    found = gateway.lookup(creds, request)

    assert found is not None
    assert (found.reference, found.status) == (first.reference, GatewayStatus.CAPTURED)
    (search,) = fake.bodies("POST", "/tss/v2/searches")
    assert search["query"] == "clientReferenceInformation.code:lost-1"
    assert gateway.lookup(creds, card(usd("10.00"), key="never-sent")) is None


def test_lookup_ignores_a_declined_attempt(
    gateway: CyberSourceGateway, creds: GatewayCredentials
) -> None:
    request = card(usd("10.00"), jwt=token("declined"), key="d-1")
    with pytest.raises(Declined):
        gateway.charge(creds, request)

    assert gateway.lookup(creds, request) is None


def test_long_keys_are_hashed_into_the_reference_code() -> None:
    long_key = "x" * 80
    assert len(reference_code(long_key)) == CODE_MAX
    assert reference_code(long_key) == reference_code(long_key)
    assert reference_code("short") == "short"


# --- through payhub's API ------------------------------------------------------------------

Client = TestClient[Litestar]


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, fake: FakeCyberSource
) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"cybersource": CyberSourceGateway})


def test_a_charge_and_a_retry_over_http(
    client: Client,
    hub: PayHub,
    fake: FakeCyberSource,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-cs")
    put = client.put(
        "/api/merchant-accounts/shop-cs/credentials/cybersource",
        json={
            "apiSecret": SECRET,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"merchantId": MERCHANT_ID, "keyId": KEY_ID},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {
        **sandbox_provider.headers,
        "X-Merchant-Reference": "shop-cs",
        "Idempotency-Key": "order-77",
    }
    body = {
        "amount": {"value": "25.05", "currency": "USD"},
        "gatewayName": "cybersource",
        "paymentMethodToken": fake.transient_token(),
        "capture": False,
    }

    response = client.post("/api/payments/charge", json=body, headers=headers)

    assert response.status_code == 201, response.text
    made = response.json()
    assert made["status"] == "Authorized"
    (payment,) = fake.payments()
    assert made["gatewayReference"] == payment["id"]
    assert payment["amount"] == Decimal("25.05")
    with hub.store.unit_of_work() as uow:
        merchant = next(
            m
            for p in uow.providers.list()
            for m in uow.merchants.list(p.id)
            if m.external_reference == "shop-cs"
        )
        tx = uow.transactions.get(merchant.id, made["transactionId"])
    assert tx is not None
    assert tx.status is TxStatus.AUTHORIZED
    assert tx.gateway_reference == payment["id"]
    assert payment["code"] == reference_code(tx.gateway_key)

    again = client.post("/api/payments/charge", json=body, headers=headers)
    assert again.json()["transactionId"] == made["transactionId"]
    assert len(fake.payments()) == 1
    assert SECRET not in response.text
