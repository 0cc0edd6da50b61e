"""The Nuvei adapter against Nuvei's real integration environment; skipped unless credentials
are set.

Environment:
  NUVEI_SANDBOX_MERCHANT_ID       an integration merchant id (ppp-test.nuvei.com)
  NUVEI_SANDBOX_MERCHANT_SITE_ID  its merchant site id
  NUVEI_SANDBOX_SECRET            its merchant secret key
  NUVEI_SANDBOX_CARD_TOKEN        optional: ``"<sessionToken>|<ccTempToken>"`` from Nuvei Fields
                                  (``getToken()`` on a page opened with that session; single use)
  NUVEI_SANDBOX_SAVE_TOKEN        optional: another such pair, to test the vault

Temp tokens can only be made in a browser, so without them these runs check the signed calls
that need none: a session opens, a wrong secret is refused as bad credentials, an unknown
transaction and an unknown ``clientUniqueId`` are reported as such (the exact "not found"
answer of ``getTransactionDetails`` is an open question in docs/gateways.md). With a token they
run an authorization, a partial settle, a refund of the settle, and the lookup by
``clientUniqueId``; with the save token, the UPO flow and a sale on the saved card.
"""

from __future__ import annotations

import os
import random
import uuid

import httpx
import pytest

from payhub.adapters.gateways.nuvei.adapter import NuveiGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)

MERCHANT_ID = os.environ.get("NUVEI_SANDBOX_MERCHANT_ID", "")
SITE_ID = os.environ.get("NUVEI_SANDBOX_MERCHANT_SITE_ID", "")
SECRET = os.environ.get("NUVEI_SANDBOX_SECRET", "")
CARD_TOKEN = os.environ.get("NUVEI_SANDBOX_CARD_TOKEN", "")
SAVE_TOKEN = os.environ.get("NUVEI_SANDBOX_SAVE_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (MERCHANT_ID and SITE_ID and SECRET),
        reason="NUVEI_SANDBOX_MERCHANT_ID/MERCHANT_SITE_ID/SECRET are not set",
    ),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(
        api_secret=SECRET,
        sandbox=True,
        fields={"merchantId": MERCHANT_ID, "merchantSiteId": SITE_ID},
    )


@pytest.fixture(scope="module")
def nuvei() -> NuveiGateway:
    return NuveiGateway(httpx.Client(timeout=60))


def _amount() -> Money:
    return Money.of(f"{random.randint(10, 60)}.{random.randint(10, 99)}", "USD")


def test_a_wrong_secret_is_rejected(nuvei: NuveiGateway, creds: GatewayCredentials) -> None:
    wrong = GatewayCredentials(api_secret="not-the-secret", sandbox=True, fields=creds.fields)

    with pytest.raises(GatewayCredentialsRejected):
        nuvei.status(wrong, "1110000000000000000")


def test_an_unknown_transaction_is_reported(nuvei: NuveiGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(GatewayError, match="no transaction"):
        nuvei.status(creds, "1110000000000000000")


def test_lookup_of_a_key_never_sent_finds_nothing(
    nuvei: NuveiGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=_amount(),
        source=PaymentSource(method_type=MethodType.CARD, token="s|t"),
        capture=True,
        idempotency_key="never-" + uuid.uuid4().hex,
    )

    assert nuvei.lookup(creds, request) is None


@pytest.mark.skipif(not CARD_TOKEN, reason="NUVEI_SANDBOX_CARD_TOKEN is not set")
def test_authorize_settle_part_refund_and_lookup(
    nuvei: NuveiGateway, creds: GatewayCredentials
) -> None:
    amount = _amount()
    request = ChargeRequest(
        amount=amount,
        source=PaymentSource(method_type=MethodType.CARD, token=CARD_TOKEN),
        capture=False,
        idempotency_key="remote-" + uuid.uuid4().hex,
    )
    auth = nuvei.charge(creds, request)
    assert auth.status is GatewayStatus.AUTHORIZED

    found = nuvei.lookup(creds, request)
    assert found is not None
    assert found.reference == auth.reference
    part = Money.of("5.00", "USD")
    nuvei.capture(creds, auth.reference, part, "cap-" + uuid.uuid4().hex)
    assert nuvei.status(creds, auth.reference).status is GatewayStatus.CAPTURED
    refund = nuvei.refund(creds, auth.reference, part, "ref-" + uuid.uuid4().hex)
    assert refund.status is GatewayStatus.REFUNDED


@pytest.mark.skipif(not SAVE_TOKEN, reason="NUVEI_SANDBOX_SAVE_TOKEN is not set")
def test_save_a_card_and_sell_on_it(nuvei: NuveiGateway, creds: GatewayCredentials) -> None:
    method = nuvei.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=SAVE_TOKEN,
            customer_id="cus_" + uuid.uuid4().hex[:12],
            gateway_customer_ref=None,
            email="remote@example.com",
            name="Remote Test",
        ),
    )
    assert method.last4 is not None

    sale = nuvei.charge(
        creds,
        ChargeRequest(
            amount=_amount(),
            source=PaymentSource(
                method_type=MethodType.CARD,
                saved_method_ref=method.method_ref,
                gateway_customer_ref=method.gateway_customer_ref,
            ),
            capture=True,
            idempotency_key="remote-" + uuid.uuid4().hex,
        ),
    )
    assert sale.status is GatewayStatus.CAPTURED
    voided = nuvei.void(creds, sale.reference, "void-" + uuid.uuid4().hex)
    assert voided.status is GatewayStatus.VOIDED
