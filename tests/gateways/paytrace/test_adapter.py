"""The PayTrace adapter against the in-memory fake of PayTrace's JSON API (``fake.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.paytrace.adapter import (
    INVOICE_ID_MAX,
    PayTraceGateway,
    decline_code,
    invoice_id_for,
)
from payhub.adapters.system import FixedClock
from payhub.domain.environments import Environment
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
from tests.gateways.paytrace.fake import (
    INTEGRATOR_ID,
    LIVE_HOST,
    PASSWORD,
    SANDBOX_HOST,
    USERNAME,
    FakePayTrace,
)
from tests.gateways.support import usd

FIELDS = {"username": USERNAME, "integratorId": INTEGRATOR_ID}
CREDS = GatewayCredentials(api_secret=PASSWORD, sandbox=True, fields=FIELDS)
TOKEN = "/oauth/token"
SALE = "/v1/transactions/sale/pt_protect"
AUTH = "/v1/transactions/authorization/pt_protect"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake() -> FakePayTrace:
    return FakePayTrace()


@pytest.fixture
def ticks() -> Clock:
    return Clock()


@pytest.fixture
def paytrace(fake: FakePayTrace, ticks: Clock) -> PayTraceGateway:
    return PayTraceGateway(
        fake.client(), monotonic=ticks, today=lambda: datetime(2026, 11, 23, 15, tzinfo=UTC)
    )


def card(hpf: str = "hpf_visa") -> PaymentSource:
    return PaymentSource(method_type=MethodType.CARD, token=f"{hpf}|enc_key_abc==")


def saved(ref: str) -> PaymentSource:
    return PaymentSource(
        method_type=MethodType.CARD, saved_method_ref=ref, gateway_customer_ref=ref
    )


def charge(
    source: PaymentSource | None = None,
    amount: str = "10.05",
    capture: bool = True,
    key: str = "idem_charge_1",
) -> ChargeRequest:
    return ChargeRequest(
        amount=usd(amount), source=source or card(), capture=capture, idempotency_key=key
    )


def save(
    hpf: str = "hpf_visa", customer: str | None = None, key: str = "idem_save_1"
) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=f"{hpf}|enc_key_abc==",
        customer_id="cus_abc",
        gateway_customer_ref=customer,
        email="ada@example.com",
        name="Ada Lovelace",
        idempotency_key=key,
    )


# --- auth ------------------------------------------------------------------------------------


def test_the_token_is_fetched_once_with_the_password_grant_and_cached(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    paytrace.charge(CREDS, charge(key="k1"))
    paytrace.charge(CREDS, charge(card("hpf_mastercard"), key="k2"))

    [grant] = fake.sent(TOKEN)
    assert grant == {"grant_type": "password", "username": USERNAME, "password": PASSWORD}
    for url, headers, body in fake.requests:
        if url.path != TOKEN:
            assert headers["authorization"].startswith("Bearer ")
            assert body["integrator_id"] == INTEGRATOR_ID
            assert PASSWORD not in str(body)


def test_an_expired_token_is_refetched_once_on_401(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    paytrace.charge(CREDS, charge(key="k1"))
    fake.expire_tokens()

    result = paytrace.charge(CREDS, charge(card("hpf_mastercard"), key="k2"))

    assert result.status is GatewayStatus.CAPTURED
    assert len(fake.sent(TOKEN)) == 2
    assert len(fake.sent(SALE)) == 3  # the refused one, then the retry
    assert len(fake.transactions) == 2


def test_the_token_is_refetched_when_its_lifetime_ends(
    paytrace: PayTraceGateway, fake: FakePayTrace, ticks: Clock
) -> None:
    paytrace.charge(CREDS, charge(key="k1"))
    ticks.now += 7200

    paytrace.charge(CREDS, charge(card("hpf_mastercard"), key="k2"))

    assert len(fake.sent(TOKEN)) == 2
    assert len(fake.sent(SALE)) == 2  # never sent with a stale token


def test_a_401_after_a_fresh_token_is_rejected_credentials(fake: FakePayTrace) -> None:
    def always_401(request: httpx.Request) -> httpx.Response:
        if request.url.path == TOKEN:
            return fake.handler(request)
        return httpx.Response(401, json={"error": "invalid_token"})

    gateway = PayTraceGateway(httpx.Client(transport=httpx.MockTransport(always_401)))

    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(CREDS, charge())
    assert len(fake.sent(TOKEN)) == 2


def test_a_wrong_password_is_rejected_credentials(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    wrong = GatewayCredentials(api_secret="wrong-password-value", sandbox=True, fields=FIELDS)

    with pytest.raises(GatewayCredentialsRejected) as caught:
        paytrace.charge(wrong, charge())

    assert "invalid_grant" in str(caught.value)
    assert fake.transactions == {}
    assert "wrong-password-value" not in f"{caught.value} {caught.value.gateway_message}"


def test_missing_fields_are_rejected_credentials_before_any_call(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    for fields in ({"integratorId": INTEGRATOR_ID}, {"username": USERNAME}):
        creds = GatewayCredentials(api_secret=PASSWORD, sandbox=True, fields=fields)
        with pytest.raises(GatewayCredentialsRejected):
            paytrace.charge(creds, charge())
    assert fake.sent(SALE) == []


def test_a_sandbox_account_on_the_live_host_is_rejected(paytrace: PayTraceGateway) -> None:
    live = GatewayCredentials(api_secret=PASSWORD, sandbox=False, fields=FIELDS)

    with pytest.raises(GatewayCredentialsRejected):
        paytrace.charge(live, charge())


# --- charges, captures, refunds, voids, status --------------------------------------------


def test_a_sale_sends_the_protect_token_and_is_captured(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    result = paytrace.charge(CREDS, charge())

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert int(result.reference) in fake.transactions
    assert result.support["response_code"] == "101"
    [sent] = fake.sent(SALE)
    assert (sent["hpf_token"], sent["enc_key"]) == ("hpf_visa", "enc_key_abc==")
    assert sent["amount"] == "10.05"
    assert sent["invoice_id"] == "idem_charge_1"


def test_authorize_then_capture_in_full(paytrace: PayTraceGateway, fake: FakePayTrace) -> None:
    auth = paytrace.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert len(fake.sent(AUTH)) == 1
    assert paytrace.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = paytrace.capture(CREDS, auth.reference, usd("10.05"), "idem_cap")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    sent = fake.sent("/v1/transactions/authorization/capture")[-1]
    assert (sent["transaction_id"], sent["amount"]) == (int(auth.reference), "10.05")
    after = paytrace.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("10.05"))


def test_a_partial_capture_captures_only_that_amount(paytrace: PayTraceGateway) -> None:
    auth = paytrace.charge(CREDS, charge(amount="20.00", capture=False))

    captured = paytrace.capture(CREDS, auth.reference, usd("12.50"), "idem_cap")

    assert captured.amount == usd("12.50")
    assert paytrace.status(CREDS, auth.reference).amount == usd("12.50")


def test_a_second_capture_is_refused(paytrace: PayTraceGateway) -> None:
    auth = paytrace.charge(CREDS, charge(capture=False))
    paytrace.capture(CREDS, auth.reference, usd("10.05"), "idem_cap")

    with pytest.raises(GatewayError) as caught:
        paytrace.capture(CREDS, auth.reference, usd("10.05"), "idem_cap")
    assert "58" in (caught.value.gateway_message or "")


def test_refunds_in_part_then_in_full(paytrace: PayTraceGateway, fake: FakePayTrace) -> None:
    sale = paytrace.charge(CREDS, charge(amount="30.00"))

    first = paytrace.refund(CREDS, sale.reference, usd("10.00"), "idem_r1")

    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("10.00"))
    assert first.reference != sale.reference
    sent = fake.sent("/v1/transactions/refund/for_transaction")[-1]
    assert (sent["transaction_id"], sent["amount"]) == (int(sale.reference), "10.00")
    paytrace.refund(CREDS, sale.reference, usd("20.00"), "idem_r2")
    assert fake.transactions[int(sale.reference)].refunded == Decimal("30.00")
    assert paytrace.status(CREDS, first.reference).status is GatewayStatus.REFUNDED

    with pytest.raises(GatewayError):
        paytrace.refund(CREDS, sale.reference, usd("0.01"), "idem_r3")


def test_a_void_cancels_the_authorization(paytrace: PayTraceGateway, fake: FakePayTrace) -> None:
    auth = paytrace.charge(CREDS, charge(capture=False))

    voided = paytrace.void(CREDS, auth.reference, "idem_void")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("10.05"))
    assert fake.sent("/v1/transactions/void")[-1]["transaction_id"] == int(auth.reference)
    assert paytrace.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError):
        paytrace.capture(CREDS, auth.reference, usd("10.05"), "idem_cap")


def test_status_reports_a_settled_sale_as_captured(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    sale = paytrace.charge(CREDS, charge())
    fake.settle()

    result = paytrace.status(CREDS, sale.reference)

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))


def test_status_of_a_declined_charge_is_declined(paytrace: PayTraceGateway) -> None:
    with pytest.raises(Declined) as caught:
        paytrace.charge(CREDS, charge(card("hpf_decline")))
    reference = caught.value.gateway_request_id
    assert reference

    assert paytrace.status(CREDS, reference).status is GatewayStatus.DECLINED


def test_status_of_an_unknown_or_malformed_reference_is_a_gateway_error(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    with pytest.raises(GatewayError, match="no transaction 12345"):
        paytrace.status(CREDS, "12345")
    with pytest.raises(GatewayError, match="not a PayTrace"):
        paytrace.status(CREDS, "../customer/delete")


def test_a_non_usd_charge_is_refused_before_any_call(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    request = ChargeRequest(
        amount=Money.of("10", "EUR"), source=card(), capture=True, idempotency_key="k"
    )
    with pytest.raises(GatewayError, match="USD only"):
        paytrace.charge(CREDS, request)
    assert fake.requests == []


# --- the vault -------------------------------------------------------------------------------


def test_a_saved_card_shows_safe_details_and_can_be_charged(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    method = paytrace.save_payment_method(CREDS, save())

    assert method.method_ref in fake.customers
    assert method.gateway_customer_ref == method.method_ref
    assert method.method_ref.startswith("cus_abc-")
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        None,  # PayTrace masks every digit but the last four and names no brand
        "1111",
        12,
        2030,
    )
    created = fake.sent("/v1/customer/pt_protect_create")[0]
    assert (created["hpf_token"], created["billing_address"]) == (
        "hpf_visa",
        {"name": "Ada Lovelace"},
    )

    result = paytrace.charge(CREDS, charge(saved(method.method_ref), key="k_saved"))
    auth = paytrace.charge(CREDS, charge(saved(method.method_ref), capture=False, key="k_a"))

    assert result.status is GatewayStatus.CAPTURED
    assert auth.status is GatewayStatus.AUTHORIZED
    sent = fake.sent("/v1/transactions/sale/by_customer")[-1]
    assert sent["customer_id"] == method.method_ref
    assert "hpf_token" not in sent
    assert len(fake.sent("/v1/transactions/authorization/by_customer")) == 1


def test_saving_for_an_existing_customer_keeps_its_reference(paytrace: PayTraceGateway) -> None:
    first = paytrace.save_payment_method(CREDS, save())

    second = paytrace.save_payment_method(
        CREDS, save("hpf_mastercard", customer=first.gateway_customer_ref, key="idem_save_2")
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref
    assert (second.last4, second.exp_month, second.exp_year) == ("5454", 4, 2031)


def test_a_retried_save_returns_the_same_profile(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    first = paytrace.save_payment_method(CREDS, save(key="idem_same"))

    again = paytrace.save_payment_method(CREDS, save("hpf_mastercard", key="idem_same"))

    assert again.method_ref == first.method_ref
    assert len(fake.customers) == 1


def test_saving_an_unknown_token_is_an_invalid_payment_method(paytrace: PayTraceGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        paytrace.save_payment_method(CREDS, save("hpf_nobody_issued"))


def test_an_unknown_profile_is_an_invalid_payment_method(paytrace: PayTraceGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        paytrace.charge(CREDS, charge(saved("cus_gone")))


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hpf", "code", "message"),
    [
        ("hpf_decline", "generic_decline", "DECLINE - Do not honor"),
        ("hpf_insufficient", "insufficient_funds", "NSF - Insufficient funds"),
        ("hpf_expired", "expired_card", "EXPIRED CARD - Expired card"),
        ("hpf_stolen", "fraudulent", "PICK UP CARD - Stolen card"),
        ("hpf_processor", "processing_error", "PROCESSOR ERROR - Re-enter"),
        ("hpf_cvv", "incorrect_cvc", "voided"),
    ],
)
def test_declines_carry_a_normalised_code_and_the_issuers_text(
    paytrace: PayTraceGateway, hpf: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        paytrace.charge(CREDS, charge(card(hpf)))

    assert caught.value.decline_code == code
    assert message in (caught.value.gateway_message or "")
    assert caught.value.gateway == "paytrace"


def test_decline_codes_read_the_issuers_text() -> None:
    assert decline_code("  OVER LIMIT") == "insufficient_funds"
    assert decline_code("CVV2 MISMATCH") == "incorrect_cvc"
    assert decline_code("LOST CARD") == "fraudulent"
    assert decline_code("") == "generic_decline"


@pytest.mark.parametrize("token", ["hpf_nobody_issued|enc", "no-separator", "|enc", "hpf|"])
def test_an_unusable_token_is_an_invalid_payment_method(
    paytrace: PayTraceGateway, token: str
) -> None:
    source = PaymentSource(method_type=MethodType.CARD, token=token)

    with pytest.raises(PaymentMethodInvalid):
        paytrace.charge(CREDS, charge(source))


def test_a_spent_token_is_an_invalid_payment_method(paytrace: PayTraceGateway) -> None:
    paytrace.charge(CREDS, charge(key="k_first"))

    with pytest.raises(PaymentMethodInvalid):
        paytrace.charge(CREDS, charge(key="k_second"))


# --- lost charges ----------------------------------------------------------------------------


def test_a_charge_whose_answer_was_lost_is_found_by_lookup(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    request = charge(key="idem_lost")
    fake.timeout_next(after_processing=True, path=SALE)
    with pytest.raises(GatewayTimeout):
        paytrace.charge(CREDS, request)

    found = paytrace.lookup(CREDS, request)

    assert found is not None
    [txn] = fake.transactions.values()
    assert (found.reference, found.status, found.amount) == (
        str(txn.id),
        GatewayStatus.CAPTURED,
        usd("10.05"),
    )
    query = fake.sent("/v1/transactions/export/by_date_range")[-1]
    assert query["including_text"] == "idem_lost"
    assert (query["start_date"], query["end_date"]) == ("11/16/2026", "11/24/2026")
    assert paytrace.lookup(CREDS, charge(key="idem_never_sent")) is None


def test_lookup_ignores_invoices_that_only_contain_the_key(paytrace: PayTraceGateway) -> None:
    paytrace.charge(CREDS, charge(key="idem_lost_2"))

    assert paytrace.lookup(CREDS, charge(key="idem_lost")) is None


def test_a_retry_with_the_spent_token_returns_the_original(
    paytrace: PayTraceGateway, fake: FakePayTrace
) -> None:
    request = charge(key="idem_retry", capture=False)

    first = paytrace.charge(CREDS, request)
    again = paytrace.charge(CREDS, request)

    assert (again.reference, again.status) == (first.reference, GatewayStatus.AUTHORIZED)
    assert len(fake.transactions) == 1


def test_a_long_idempotency_key_becomes_a_stable_50_character_invoice_id() -> None:
    key = "k" * 80

    assert invoice_id_for(key) == invoice_id_for(key)
    assert len(invoice_id_for(key)) == INVOICE_ID_MAX == 50
    assert invoice_id_for(key) != invoice_id_for(key + "x")
    assert invoice_id_for("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- hosts and secrets -----------------------------------------------------------------------


def test_sandbox_and_live_credentials_use_their_hosts(fake: FakePayTrace) -> None:
    PayTraceGateway(fake.client()).charge(CREDS, charge())
    assert {url.host for url, _, _ in fake.requests} == {SANDBOX_HOST}

    live_fake = FakePayTrace(sandbox=False)
    live = GatewayCredentials(api_secret=PASSWORD, sandbox=False, fields=FIELDS)
    PayTraceGateway(live_fake.client()).charge(live, charge())
    assert {url.host for url, _, _ in live_fake.requests} == {LIVE_HOST}


def test_no_secret_or_token_reaches_an_error_or_a_result(paytrace: PayTraceGateway) -> None:
    failures: list[GatewayError] = []
    for request, creds in [
        (charge(card("hpf_decline")), CREDS),
        (charge(card("hpf_secret_looking_token")), CREDS),
        (
            charge(),
            GatewayCredentials(api_secret="wrong-secret-value", sandbox=True, fields=FIELDS),
        ),
    ]:
        with pytest.raises(GatewayError) as caught:
            paytrace.charge(creds, request)
        failures.append(caught.value)
    result = paytrace.charge(CREDS, charge(card("hpf_mastercard")))

    for failure in failures:
        text = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (PASSWORD, "wrong-secret-value", "hpf_secret_looking_token", "enc_key_abc"):
            assert secret not in text
    shown = f"{result} {result.support}"
    assert PASSWORD not in shown
    assert "hpf_mastercard" not in shown
    assert "Bearer" not in shown


def test_a_token_echoed_by_paytrace_is_blanked(fake: FakePayTrace) -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        if request.url.path == TOKEN:
            return fake.handler(request)
        body = httpx.Response(200, content=request.content).json()
        text = f"Bad hpf_token {body['hpf_token']} with {body['enc_key']}"
        return httpx.Response(
            400, json={"success": False, "response_code": 1, "errors": {"839": [text]}}
        )

    gateway = PayTraceGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(CREDS, save("hpf_echoed/back+"))

    message = caught.value.gateway_message or ""
    assert "hpf_echoed/back+" not in message
    assert "enc_key_abc" not in message
    assert "[redacted]" in message


# --- through payhub's API ------------------------------------------------------------------


@pytest.fixture
def api_hub(store_url: str, key_file: Path, fake: FakePayTrace) -> Iterator[PayHub]:
    with fake.client() as http:
        hub = PayHub.open(
            store_url,
            key_file=key_file,
            clock=FixedClock(datetime(2026, 11, 23, 15, tzinfo=UTC)),
            gateways={"paytrace": PayTraceGateway(http)},
        )
        yield hub
        hub.close()


@pytest.fixture
def api_client(api_hub: PayHub) -> Iterator[TestClient[Litestar]]:
    from payhub_server import create_app

    with TestClient(create_app(api_hub)) as client:
        yield client


def test_a_charge_over_http_reaches_paytrace_and_is_recorded(
    api_client: TestClient[Litestar], api_hub: PayHub, fake: FakePayTrace
) -> None:
    provider, issued = api_hub.operators.create_provider("Provider A", Environment.SANDBOX)
    account = Account(provider, issued.secret)
    made = api_client.post(
        "/api/merchant-accounts",
        json={"externalReference": "shop-pt", "displayName": "Shop"},
        headers=account.headers,
    )
    assert made.status_code == 201, made.text
    put = api_client.put(
        "/api/merchant-accounts/shop-pt/credentials/paytrace",
        json={
            "apiSecret": PASSWORD,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": FIELDS,
        },
        headers=account.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**account.headers, "X-Merchant-Reference": "shop-pt"}

    response = api_client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.05", "currency": "USD"},
            "gatewayName": "paytrace",
            "paymentMethodToken": "hpf_visa|enc_key_abc==",
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Captured"
    [txn] = fake.transactions.values()
    assert body["gatewayReference"] == str(txn.id)
    assert txn.amount == Decimal("25.05")
    [sent] = fake.sent(SALE)
    assert sent["invoice_id"]  # payhub's gateway key
    with api_hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(provider.id, "shop-pt")
        assert merchant is not None
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.gateway_reference, tx.gateway_key) == (
        TxStatus.CAPTURED,
        str(txn.id),
        sent["invoice_id"],
    )

    declined = api_client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "5.00", "currency": "USD"},
            "gatewayName": "paytrace",
            "paymentMethodToken": "hpf_insufficient|enc_key_abc==",
        },
        headers=headers,
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
    assert "enc_key_abc" not in declined.text
