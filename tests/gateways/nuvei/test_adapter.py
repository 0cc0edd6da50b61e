"""The Nuvei adapter against the in-memory fake of Nuvei's REST API 1.0 (``fake.py``),
plus one charge through payhub's HTTP API with the adapter wired to the fake."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.nuvei.adapter import (
    ID_MAX,
    NuveiGateway,
    checksum,
    decline_code,
    request_id_for,
    settle_id_for,
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
    GatewayTimeout,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import Account
from tests.gateways.nuvei.fake import (
    LIVE_HOST,
    MERCHANT_ID,
    MERCHANT_SITE_ID,
    SANDBOX_HOST,
    SECRET,
    FakeNuvei,
)
from tests.gateways.support import hub_on, usd

FIELDS = {"merchantId": MERCHANT_ID, "merchantSiteId": MERCHANT_SITE_ID}
CREDS = GatewayCredentials(api_secret=SECRET, sandbox=True, fields=FIELDS)


@pytest.fixture
def fake() -> FakeNuvei:
    return FakeNuvei()


@pytest.fixture
def nuvei(fake: FakeNuvei) -> NuveiGateway:
    return NuveiGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def token(value: str) -> PaymentSource:
    return PaymentSource(method_type=MethodType.CARD, token=value)


def saved(ref: str, user: str | None) -> PaymentSource:
    return PaymentSource(
        method_type=MethodType.CARD, saved_method_ref=ref, gateway_customer_ref=user
    )


def charge(
    source: PaymentSource,
    amount: Money | None = None,
    capture: bool = True,
    key: str = "idem_charge_1",
) -> ChargeRequest:
    return ChargeRequest(
        amount=amount or usd("10.05"),
        source=source,
        capture=capture,
        idempotency_key=key,
        description="Order 42",
    )


def save(value: str, user: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=value,
        customer_id="cus_abc",
        gateway_customer_ref=user,
        email="ada@example.com",
        name="Ada Lovelace",
    )


# --- authentication and hosts ----------------------------------------------------------------


def test_every_body_is_signed_with_the_methods_checksum(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    result = nuvei.charge(CREDS, charge(token(fake.fields_token())))
    nuvei.status(CREDS, result.reference)

    [payment] = fake.posts("payment")
    expected = hashlib.sha256(
        (
            MERCHANT_ID + MERCHANT_SITE_ID + payment["clientRequestId"] + "10.05" + "USD"
            + payment["timeStamp"] + SECRET
        ).encode()
    ).hexdigest()  # fmt: skip
    assert payment["checksum"] == expected
    assert {url.host for _, url, _ in fake.requests} == {SANDBOX_HOST}
    for _, _, body in fake.requests:
        assert SECRET not in str(body)
    assert checksum("getSessionToken", {"merchantId": "m", "merchantSiteId": "s",
                                        "clientRequestId": "r", "timeStamp": "t"}, "k") == (
        hashlib.sha256(b"msrtk").hexdigest()
    )  # fmt: skip


def test_live_credentials_use_the_live_host() -> None:
    fake = FakeNuvei(sandbox=False)
    gateway = NuveiGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))
    live = GatewayCredentials(api_secret=SECRET, sandbox=False, fields=FIELDS)

    sale = gateway.charge(live, charge(token(fake.fields_token())))
    gateway.status(live, sale.reference)

    assert {url.host for _, url, _ in fake.requests} == {LIVE_HOST}
    assert all(url.path.startswith("/ppp/api/v1/") for _, url, _ in fake.requests)


@pytest.mark.parametrize(
    ("creds", "message"),
    [
        (GatewayCredentials(api_secret="wrong-secret-key", sandbox=True, fields=FIELDS),
         "Invalid checksum"),
        (GatewayCredentials(api_secret=SECRET, sandbox=True,
                            fields=FIELDS | {"merchantSiteId": "999"}), "Invalid merchant site ID"),
        (GatewayCredentials(api_secret=SECRET, sandbox=False, fields=FIELDS),
         "Invalid merchant ID"),
    ],
)  # fmt: skip
def test_wrong_credentials_are_rejected(
    nuvei: NuveiGateway, fake: FakeNuvei, creds: GatewayCredentials, message: str
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as caught:
        nuvei.charge(creds, charge(token(fake.fields_token())))

    assert caught.value.gateway_message == message
    assert fake.transactions == {}


def test_credentials_without_the_site_id_never_reach_nuvei(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    creds = GatewayCredentials(api_secret=SECRET, sandbox=True, fields={"merchantId": MERCHANT_ID})

    with pytest.raises(GatewayCredentialsRejected, match="merchantSiteId"):
        nuvei.charge(creds, charge(token(fake.fields_token())))
    assert fake.requests == []


# --- charges, captures, refunds, voids, status ---------------------------------------------


def test_a_sale_charges_the_fields_temp_token_under_its_session(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    fields = fake.fields_token()
    session, temp = fields.split("|")

    result = nuvei.charge(CREDS, charge(token(fields)))

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert result.reference in fake.transactions
    [sent] = fake.posts("payment")
    assert sent["sessionToken"] == session
    assert sent["paymentOption"] == {"card": {"ccTempToken": temp}}
    assert (sent["transactionType"], sent["amount"], sent["currency"]) == ("Sale", "10.05", "USD")
    assert sent["clientRequestId"] == sent["clientUniqueId"] == "idem_charge_1"
    assert fake.posts("getSessionToken") == []  # the Fields session is reused
    assert nuvei.status(CREDS, result.reference).status is GatewayStatus.CAPTURED


def test_a_bare_temp_token_is_charged_under_a_fresh_session(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    session, temp = fake.fields_token().split("|")

    with pytest.raises(PaymentMethodInvalid):  # the fake, like Nuvei, binds it to its session
        nuvei.charge(CREDS, charge(token(temp)))
    assert len(fake.posts("getSessionToken")) == 1
    assert fake.posts("payment")[0]["sessionToken"] != session


def test_authorize_then_settle_in_full(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    auth = nuvei.charge(CREDS, charge(token(fake.fields_token()), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.posts("payment")[0]["transactionType"] == "Auth"
    assert nuvei.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = nuvei.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_1")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    settle = fake.posts("settleTransaction")[0]
    assert (settle["relatedTransactionId"], settle["amount"], settle["authCode"]) == (
        auth.reference, "10.05", "111361")  # fmt: skip
    assert settle["clientUniqueId"] == settle_id_for(auth.reference)
    after = nuvei.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("10.05"))


def test_a_partial_settle_captures_only_that_amount(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    auth = nuvei.charge(CREDS, charge(token(fake.fields_token()), usd("20.00"), capture=False))

    captured = nuvei.capture(CREDS, auth.reference, usd("12.50"), "idem_capture_2")

    assert captured.amount == usd("12.50")
    after = nuvei.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("12.50"))


def test_settling_a_voided_authorization_is_refused(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    auth = nuvei.charge(CREDS, charge(token(fake.fields_token()), capture=False))
    nuvei.void(CREDS, auth.reference, "idem_void_0")

    with pytest.raises(GatewayError) as caught:
        nuvei.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_3")

    assert caught.value.gateway_message == "Transaction already voided"


def test_refunds_of_a_sale_part_then_the_rest(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    sale = nuvei.charge(CREDS, charge(token(fake.fields_token()), usd("30.00")))

    part = nuvei.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_1")
    rest = nuvei.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_2")

    assert (part.status, part.amount) == (GatewayStatus.REFUNDED, usd("10.00"))
    assert part.reference not in (sale.reference, rest.reference)
    assert [b["relatedTransactionId"] for b in fake.posts("refundTransaction")] == [
        sale.reference, sale.reference]  # fmt: skip
    assert nuvei.status(CREDS, part.reference).status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError) as caught:
        nuvei.refund(CREDS, sale.reference, usd("0.01"), "idem_refund_3")
    assert "exceeds" in (caught.value.gateway_message or "")


def test_a_refund_of_a_captured_authorization_refunds_its_settle(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    auth = nuvei.charge(CREDS, charge(token(fake.fields_token()), usd("20.00"), capture=False))
    nuvei.capture(CREDS, auth.reference, usd("15.00"), "idem_capture_4")
    [settle] = [t for t in fake.transactions.values() if t.type == "Settle"]

    refund = nuvei.refund(CREDS, auth.reference, usd("15.00"), "idem_refund_4")

    assert refund.status is GatewayStatus.REFUNDED
    assert fake.posts("refundTransaction")[0]["relatedTransactionId"] == settle.id
    assert settle.refunded == Decimal("15.00")


def test_a_void_cancels_the_authorization(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    auth = nuvei.charge(CREDS, charge(token(fake.fields_token()), capture=False))

    voided = nuvei.void(CREDS, auth.reference, "idem_void_1")

    assert (voided.status, voided.reference, voided.amount) == (
        GatewayStatus.VOIDED, auth.reference, usd("10.05"))  # fmt: skip
    [sent] = fake.posts("voidTransaction")
    assert (sent["relatedTransactionId"], sent["amount"], sent["currency"]) == (
        auth.reference, "10.05", "USD")  # fmt: skip
    assert nuvei.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    again = nuvei.void(CREDS, auth.reference, "idem_void_1")  # a retry: answered, not sent
    assert again.status is GatewayStatus.VOIDED
    assert len(fake.posts("voidTransaction")) == 1


def test_status_of_an_unknown_transaction_is_an_error(nuvei: NuveiGateway) -> None:
    with pytest.raises(GatewayError, match="no transaction"):
        nuvei.status(CREDS, "711000000000000000")


def test_status_reports_a_declined_charge(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    with pytest.raises(Declined):
        nuvei.charge(CREDS, charge(token(fake.fields_token("insufficient"))))
    [txn] = fake.charges()

    result = nuvei.status(CREDS, txn.id)

    assert (result.status, result.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


# --- vault ---------------------------------------------------------------------------------


def test_saving_creates_the_user_stores_the_card_and_shows_safe_details(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    fields = fake.fields_token()

    method = nuvei.save_payment_method(CREDS, save(fields))

    assert method.gateway_customer_ref == "cus_abc"
    assert fake.upos[method.method_ref][0] == "cus_abc"
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        "visa", "1390", 12, 2030)  # fmt: skip
    [user] = fake.posts("createUser")
    assert (user["userTokenId"], user["firstName"], user["lastName"], user["countryCode"]) == (
        "cus_abc", "Ada", "Lovelace", "US")  # fmt: skip
    [added] = fake.posts("addUPOCreditCardByTempToken")
    assert (added["sessionToken"], added["ccTempToken"]) == tuple(fields.split("|"))


def test_a_saved_card_is_sold_and_authorized_by_its_upo(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    method = nuvei.save_payment_method(CREDS, save(fake.fields_token("mastercard")))
    source = saved(method.method_ref, method.gateway_customer_ref)

    sale = nuvei.charge(CREDS, charge(source, key="idem_saved_1"))
    auth = nuvei.charge(CREDS, charge(source, capture=False, key="idem_saved_2"))

    assert (sale.status, auth.status) == (GatewayStatus.CAPTURED, GatewayStatus.AUTHORIZED)
    sent = fake.posts("payment")[0]
    assert sent["userTokenId"] == "cus_abc"
    assert sent["paymentOption"] == {"userPaymentOptionId": method.method_ref}
    assert len(fake.posts("getSessionToken")) == 2  # one fresh session per saved-card charge


def test_saving_for_an_existing_user_keeps_it(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    first = nuvei.save_payment_method(CREDS, save(fake.fields_token()))

    second = nuvei.save_payment_method(
        CREDS, save(fake.fields_token("mastercard"), first.gateway_customer_ref)
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref
    assert (second.brand, second.last4) == ("mastercard", "0017")
    assert len(fake.posts("createUser")) == 1


def test_saving_when_the_user_already_exists_at_nuvei_goes_on(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    nuvei.save_payment_method(CREDS, save(fake.fields_token()))

    again = nuvei.save_payment_method(CREDS, save(fake.fields_token("mastercard")))

    assert again.gateway_customer_ref == "cus_abc"
    assert len(fake.users) == 1


def test_saving_an_unknown_temp_token_is_an_invalid_method(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    session = fake.fields_token().split("|")[0]

    with pytest.raises(PaymentMethodInvalid):
        nuvei.save_payment_method(CREDS, save(f"{session}|tt_nobody_issued"))


def test_a_removed_or_foreign_saved_method_is_an_invalid_method(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    method = nuvei.save_payment_method(CREDS, save(fake.fields_token()))

    with pytest.raises(PaymentMethodInvalid):
        nuvei.charge(CREDS, charge(saved("99999", method.gateway_customer_ref)))
    with pytest.raises(PaymentMethodInvalid):
        nuvei.charge(CREDS, charge(saved(method.method_ref, "someone_else"), key="idem_x"))


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "code", "message"),
    [
        ("decline", "generic_decline", "Decline"),
        ("insufficient", "insufficient_funds", "Insufficient Funds"),
        ("cvv", "incorrect_cvc", "Invalid CVV2"),
        ("stolen", "fraudulent", "Lost/Stolen Card"),
        ("expired", "expired_card", "Expired Card"),
    ],
)
def test_declines_carry_a_normalised_code_and_nuveis_reason(
    nuvei: NuveiGateway, fake: FakeNuvei, card: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        nuvei.charge(CREDS, charge(token(fake.fields_token(card))))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway == "nuvei"


def test_a_3ds_challenge_is_declined(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    with pytest.raises(Declined, match="3-D Secure"):
        nuvei.charge(CREDS, charge(token(fake.fields_token("challenge"))))


def test_decline_codes_from_reasons() -> None:
    assert decline_code("Do Not Honor") == "generic_decline"
    assert decline_code("Exceeds Withdrawal Limit") == "insufficient_funds"
    assert decline_code("Pick Up Card") == "fraudulent"


def test_an_unknown_or_spent_temp_token_is_an_invalid_payment_method(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    fields = fake.fields_token()
    nuvei.charge(CREDS, charge(token(fields), key="idem_first"))

    with pytest.raises(PaymentMethodInvalid) as caught:
        nuvei.charge(CREDS, charge(token(fields), usd("11.00"), key="idem_second"))

    assert caught.value.gateway_message == "Missing or invalid CardData data"
    assert len(fake.charges()) == 1


# --- idempotency: clientRequestId and lookup by clientUniqueId -----------------------------


def test_a_retried_charge_is_refused_by_nuvei_and_answered_from_the_lost_charge(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    request = charge(token(fake.fields_token()), key="idem_retry", capture=False)
    first = nuvei.charge(CREDS, request)

    again = nuvei.charge(CREDS, request)  # same clientRequestId: Nuvei refuses it

    assert (again.reference, again.status) == (first.reference, GatewayStatus.AUTHORIZED)
    assert len(fake.charges()) == 1
    assert [b["clientRequestId"] for b in fake.posts("payment")] == ["idem_retry"] * 2


def test_lookup_finds_a_charge_whose_answer_was_lost(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    request = charge(token(fake.fields_token()), key="idem_lost")
    fake.timeout_next(after_processing=True, method="payment")
    with pytest.raises(GatewayTimeout):
        nuvei.charge(CREDS, request)

    found = nuvei.lookup(CREDS, request)

    assert found is not None
    [txn] = fake.charges()
    assert (found.reference, found.status, found.amount) == (
        txn.id, GatewayStatus.CAPTURED, usd("10.05"))  # fmt: skip
    assert fake.posts("getTransactionDetails")[0]["clientUniqueId"] == "idem_lost"
    assert nuvei.lookup(CREDS, charge(token("s|t"), key="idem_never_sent")) is None


def test_lookup_ignores_a_declined_charge(nuvei: NuveiGateway, fake: FakeNuvei) -> None:
    request = charge(token(fake.fields_token("decline")), key="idem_declined")
    with pytest.raises(Declined):
        nuvei.charge(CREDS, request)

    assert nuvei.lookup(CREDS, request) is None


def test_a_retry_nuvei_cannot_be_asked_about_stays_unknown(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    request = charge(token(fake.fields_token()), key="idem_unknown")
    nuvei.charge(CREDS, request)
    fake.timeout_next(method="getTransactionDetails")

    with pytest.raises(GatewayTimeout):
        nuvei.charge(CREDS, request)
    assert len(fake.charges()) == 1


def test_a_retried_capture_after_a_lost_answer_is_not_settled_twice(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    auth = nuvei.charge(CREDS, charge(token(fake.fields_token()), capture=False))
    fake.timeout_next(after_processing=True, method="settleTransaction")
    with pytest.raises(GatewayTimeout):
        nuvei.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_lost")

    again = nuvei.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_lost")

    assert again.status is GatewayStatus.CAPTURED
    assert len([t for t in fake.transactions.values() if t.type == "Settle"]) == 1


def test_long_keys_become_stable_45_character_ids() -> None:
    key = "k" * 100

    assert request_id_for(key) == request_id_for(key)
    assert len(request_id_for(key)) == ID_MAX == 45
    assert request_id_for(key) != request_id_for(key + "x")
    assert request_id_for("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- amounts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "wire"),
    [
        (Money.of("10.05", "USD"), "10.05"),
        (Money.of("1000", "JPY"), "1000"),
        (Money.of("12.34", "EUR"), "12.34"),
        (Money.from_minor_units(100000, "USD"), "1000.00"),
    ],
)
def test_amounts_are_exact_decimal_strings_with_the_iso_currency(
    nuvei: NuveiGateway, fake: FakeNuvei, amount: Money, wire: str
) -> None:
    result = nuvei.charge(CREDS, charge(token(fake.fields_token()), amount))

    sent = fake.posts("payment")[0]
    assert (sent["amount"], sent["currency"]) == (wire, amount.currency)
    reported = nuvei.status(CREDS, result.reference).amount
    assert reported == amount
    assert isinstance(reported.amount, Decimal)


# --- secrets ---------------------------------------------------------------------------------


def test_no_secret_or_token_reaches_an_error_or_a_result(
    nuvei: NuveiGateway, fake: FakeNuvei
) -> None:
    failures: list[GatewayError] = []
    wrong = GatewayCredentials(api_secret="wrong-secret-value", sandbox=True, fields=FIELDS)
    decline, good = fake.fields_token("decline"), fake.fields_token("mastercard")
    session = fake.fields_token().split("|")[0]
    for request, creds in [
        (charge(token(decline)), CREDS),
        (charge(token(f"{session}|tt_secret_looking_token"), key="idem_2"), CREDS),
        (charge(token(fake.fields_token()), key="idem_3"), wrong),
    ]:
        with pytest.raises(GatewayError) as caught:
            nuvei.charge(creds, request)
        failures.append(caught.value)
    result = nuvei.charge(CREDS, charge(token(good), key="idem_4"))

    for failure in failures:
        text = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (SECRET, "wrong-secret-value", "tt_secret_looking_token", session):
            assert secret not in text
    shown = f"{result} {result.support}"
    assert SECRET not in shown
    assert good.split("|")[1] not in shown


def test_a_token_echoed_by_nuvei_is_blanked_from_the_gateway_message() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        sent = httpx.Response(200, content=request.content).json()
        temp = sent.get("paymentOption", {}).get("card", {}).get("ccTempToken", "")
        return httpx.Response(
            200,
            json={"status": "ERROR", "errCode": 1004,
                  "reason": f"Invalid ccTempToken {temp} in session {sent.get('sessionToken')}"},
        )  # fmt: skip

    gateway = NuveiGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(CREDS, charge(token("sess-echoed-back|tt/echoed+back==")))

    message = caught.value.gateway_message or ""
    assert "tt/echoed+back==" not in message
    assert "sess-echoed-back" not in message
    assert "[redacted]" in message


# --- through payhub's HTTP API -------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeNuvei) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"nuvei": NuveiGateway})


def test_a_charge_over_http_reaches_nuvei_and_is_recorded(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeNuvei,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-n")
    put = client.put(
        "/api/merchant-accounts/shop-n/credentials/nuvei",
        json={
            "apiSecret": SECRET,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": FIELDS,
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {
        **sandbox_provider.headers,
        "X-Merchant-Reference": "shop-n",
        "Idempotency-Key": "order-n-1",
    }
    body = {
        "amount": {"value": "25.05", "currency": "USD"},
        "gatewayName": "nuvei",
        "paymentMethodToken": fake.fields_token(),
    }

    response = client.post("/api/payments/charge", json=body, headers=headers)

    assert response.status_code == 201, response.text
    answer = response.json()
    assert answer["status"] == "Captured"
    [txn] = fake.charges()
    assert answer["gatewayReference"] == txn.id
    assert txn.amount == Decimal("25.05")
    with hub.store.unit_of_work() as uow:
        merchant = next(m for p in uow.providers.list() for m in uow.merchants.list(p.id))
        stored = uow.transactions.get(merchant.id, answer["transactionId"])
    assert stored is not None
    assert (stored.status, stored.gateway, stored.gateway_reference) == (
        TxStatus.CAPTURED, "nuvei", txn.id)  # fmt: skip
    assert stored.amount == usd("25.05")
    declined = client.post(
        "/api/payments/charge",
        json=body | {"paymentMethodToken": fake.fields_token("insufficient")},
        headers=headers | {"Idempotency-Key": "order-n-2"},
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
    assert SECRET not in declined.text
