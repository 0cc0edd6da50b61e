"""The Authorize.Net adapter against the real sandbox; skipped unless credentials are set.

Environment:
  AUTHORIZE_NET_SANDBOX_LOGIN_ID         the sandbox API Login ID
  AUTHORIZE_NET_SANDBOX_TRANSACTION_KEY  the sandbox Transaction Key
  AUTHORIZE_NET_SANDBOX_CLIENT_KEY       optional: the public Client Key; without it the tests
                                         that need a fresh Accept token are skipped

Tokens are made the way Accept.js makes them, with ``securePaymentContainerRequest``
authenticated by the public Client Key, from the documented sandbox test card
4111 1111 1111 1111 and a bank account with a real routing number and a random account
number (https://developer.authorize.net/hello_world/testing_guide/; eCheck debits over
$100 are declined there).
Refunds need a settled transaction (the sandbox settles once a day), so they are not run here.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.authorize_net.adapter import SANDBOX_URL, AuthorizeNetGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayStatus,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
)

LOGIN = os.environ.get("AUTHORIZE_NET_SANDBOX_LOGIN_ID", "")
KEY = os.environ.get("AUTHORIZE_NET_SANDBOX_TRANSACTION_KEY", "")
CLIENT_KEY = os.environ.get("AUTHORIZE_NET_SANDBOX_CLIENT_KEY", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (LOGIN and KEY),
        reason="AUTHORIZE_NET_SANDBOX_LOGIN_ID or AUTHORIZE_NET_SANDBOX_TRANSACTION_KEY is unset",
    ),
]
needs_tokens = pytest.mark.skipif(
    not CLIENT_KEY, reason="AUTHORIZE_NET_SANDBOX_CLIENT_KEY is not set"
)

CREDS = GatewayCredentials(KEY, sandbox=True, fields={"apiLoginId": LOGIN})


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30.0) as http:
        yield http


@pytest.fixture
def gateway(client: httpx.Client) -> AuthorizeNetGateway:
    return AuthorizeNetGateway(client)


def accept_token(client: httpx.Client, *, bank: bool = False) -> str:
    """A fresh Accept token (opaqueData.dataValue), as Accept.js would get one."""
    data: dict[str, object] = {"type": "TOKEN", "id": uuid.uuid4().hex}
    if bank:
        data["bankToken"] = {
            "accountType": "checking",
            "routingNumber": "121042882",
            "accountNumber": str(uuid.uuid4().int)[:12],
            "nameOnAccount": "Jane Doe",
        }
    else:
        data["token"] = {"cardNumber": "4111111111111111", "expirationDate": "2032-12"}
    body = {
        "securePaymentContainerRequest": {
            "merchantAuthentication": {"name": LOGIN, "clientKey": CLIENT_KEY},
            "refId": uuid.uuid4().hex[:20],
            "data": data,
        }
    }
    response = client.post(SANDBOX_URL, json=body)
    answer = json.loads(response.content.decode("utf-8-sig"))
    assert answer["messages"]["resultCode"] == "Ok", answer["messages"]
    return str(answer["opaqueData"]["dataValue"])


def usd(value: str) -> Money:
    # Random cents keep the sandbox's duplicate check out of the way across runs.
    return Money.of(Decimal(value) + Decimal(uuid.uuid4().int % 90 + 1) / 100, "USD")


def request(amount: Money, token: str, *, capture: bool = True) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token=token)
    return ChargeRequest(amount, source, capture, f"remote-{uuid.uuid4().hex}")


@needs_tokens
def test_sale_then_void(gateway: AuthorizeNetGateway, client: httpx.Client) -> None:
    sale = gateway.charge(CREDS, request(usd("11.00"), accept_token(client)))
    assert sale.status is GatewayStatus.CAPTURED

    voided = gateway.void(CREDS, sale.reference, f"remote-{uuid.uuid4().hex}")

    assert voided.status is GatewayStatus.VOIDED
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.VOIDED


@needs_tokens
def test_authorize_then_partial_capture(gateway: AuthorizeNetGateway, client: httpx.Client) -> None:
    amount = usd("20.00")
    authorized = gateway.charge(CREDS, request(amount, accept_token(client), capture=False))
    assert authorized.status is GatewayStatus.AUTHORIZED

    part = Money.of(amount.amount - Decimal("5.00"), "USD")
    captured = gateway.capture(CREDS, authorized.reference, part, f"remote-{uuid.uuid4().hex}")

    assert captured.status is GatewayStatus.CAPTURED
    status = gateway.status(CREDS, authorized.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, part)


@needs_tokens
def test_a_retry_returns_the_original(gateway: AuthorizeNetGateway, client: httpx.Client) -> None:
    first_request = request(usd("13.00"), accept_token(client))
    first = gateway.charge(CREDS, first_request)

    # The same card, freshly tokenized (Accept tokens work once), under the same key.
    source = PaymentSource(MethodType.CARD, token=accept_token(client))
    retry = ChargeRequest(first_request.amount, source, True, first_request.idempotency_key)
    again = gateway.charge(CREDS, retry)

    assert again.reference == first.reference


@needs_tokens
def test_save_a_card_and_charge_it(gateway: AuthorizeNetGateway, client: httpx.Client) -> None:
    customer = f"cus_{uuid.uuid4().hex[:16]}"
    saved = gateway.save_payment_method(
        CREDS, SaveMethodRequest(MethodType.CARD, accept_token(client), customer, None)
    )
    assert (saved.brand, saved.last4) == ("visa", "1111")

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    charged = gateway.charge(
        CREDS, ChargeRequest(usd("9.00"), source, True, f"remote-{uuid.uuid4().hex}")
    )
    assert charged.status is GatewayStatus.CAPTURED


@needs_tokens
def test_an_ach_debit(gateway: AuthorizeNetGateway, client: httpx.Client) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token=accept_token(client, bank=True))
    debit = gateway.charge(
        CREDS, ChargeRequest(usd("7.00"), source, True, f"remote-{uuid.uuid4().hex}")
    )

    assert debit.status is GatewayStatus.SUBMITTED


@needs_tokens
def test_an_ach_debit_over_100_dollars_is_declined(
    gateway: AuthorizeNetGateway, client: httpx.Client
) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token=accept_token(client, bank=True))

    with pytest.raises(Declined):
        gateway.charge(
            CREDS, ChargeRequest(usd("150.00"), source, True, f"remote-{uuid.uuid4().hex}")
        )


def test_an_unknown_token_is_invalid(gateway: AuthorizeNetGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(CREDS, request(usd("5.00"), "not-a-real-accept-token"))


def test_bad_credentials_are_rejected(gateway: AuthorizeNetGateway) -> None:
    wrong = GatewayCredentials("WrongKey12345678", sandbox=True, fields={"apiLoginId": LOGIN})

    with pytest.raises(GatewayCredentialsRejected):
        gateway.status(wrong, "1")
