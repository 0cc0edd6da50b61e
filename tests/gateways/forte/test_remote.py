"""The Forte adapter against Forte's real sandbox; skipped unless credentials are set.

Environment:
  FORTE_SANDBOX_ACCESS_ID        the API access id of a Forte sandbox (Dex) account
  FORTE_SANDBOX_SECURE_KEY       its secure key (payhub's apiSecret)
  FORTE_SANDBOX_ORGANIZATION_ID  org_… ; FORTE_SANDBOX_LOCATION_ID  loc_…
  FORTE_SANDBOX_CARD_TOKEN       optional: a fresh Forte.js one-time token (ott_…, one use)

Without a token only the calls that need none run. These tests settle the open questions
in docs/gateways.md (the ``filter`` syntax used by ``lookup``, partial capture).
"""

from __future__ import annotations

import os
import uuid

import httpx
import pytest

from payhub.adapters.gateways.forte.adapter import ForteGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
)

ACCESS_ID = os.environ.get("FORTE_SANDBOX_ACCESS_ID", "")
SECURE_KEY = os.environ.get("FORTE_SANDBOX_SECURE_KEY", "")
ORG = os.environ.get("FORTE_SANDBOX_ORGANIZATION_ID", "")
LOC = os.environ.get("FORTE_SANDBOX_LOCATION_ID", "")
CARD_TOKEN = os.environ.get("FORTE_SANDBOX_CARD_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (ACCESS_ID and SECURE_KEY and ORG and LOC),
        reason="FORTE_SANDBOX_ACCESS_ID, _SECURE_KEY, _ORGANIZATION_ID, _LOCATION_ID are not set",
    ),
]


def creds(secret: str = SECURE_KEY) -> GatewayCredentials:
    fields = {"accessId": ACCESS_ID, "organizationId": ORG, "locationId": LOC}
    return GatewayCredentials(api_secret=secret, sandbox=True, fields=fields)


@pytest.fixture(scope="module")
def forte() -> ForteGateway:
    return ForteGateway(httpx.Client(timeout=60))


def request(token: str, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount=Money.of("3.17", "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token=token),
        capture=capture,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )


def test_a_wrong_secure_key_is_rejected(forte: ForteGateway) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        forte.lookup(creds("not-the-secure-key"), request("ott_none"))


def test_lookup_of_an_unused_key_finds_nothing(forte: ForteGateway) -> None:
    assert forte.lookup(creds(), request("ott_none")) is None


def test_an_unknown_one_time_token_is_refused(forte: ForteGateway) -> None:
    with pytest.raises((PaymentMethodInvalid, GatewayError)):
        forte.charge(creds(), request("ott_not_a_real_token"))


@pytest.mark.skipif(not CARD_TOKEN, reason="FORTE_SANDBOX_CARD_TOKEN is not set")
def test_an_authorization_is_found_by_lookup_captured_and_refunded(forte: ForteGateway) -> None:
    charge = request(CARD_TOKEN, capture=False)
    auth = forte.charge(creds(), charge)
    assert forte.status(creds(), auth.reference).status is GatewayStatus.AUTHORIZED
    found = forte.lookup(creds(), charge)
    assert found is not None
    assert found.reference == auth.reference

    assert (
        forte.capture(creds(), auth.reference, charge.amount, "c").status is GatewayStatus.CAPTURED
    )
    part = Money.of("1.00", "USD")
    assert forte.refund(creds(), auth.reference, part, "r").status is GatewayStatus.REFUNDED
