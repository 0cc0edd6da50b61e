"""Adyen's webhooks settle the captures, refunds and cancels Adyen only *received*.

Signatures are held to Adyen's own ``HmacValidator`` (``@adyen/api-library``, run by node on
the library's own ``NotificationRequest``), the webhooks' shape to the library's notification
models; then, over HTTP on both stores, each kind of notification settles the pending move by
the status-read path (the transaction, its ledger and the payment events), and duplicates, bad
signatures, other merchant accounts, unknown payments and failed basic authentication change
nothing.
"""

from __future__ import annotations

import base64
import copy
import json
import random
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from structlog.testing import capture_logs

from payhub import PayHub
from payhub.adapters.gateways.adyen import notifications
from payhub.domain.payments import EventKind, GatewayCredentials
from payhub.ports import EventQuery
from tests.conftest import Account
from tests.gateways.adyen.contract import library_hmac, validate_notification
from tests.gateways.adyen.fake import API_KEY, MERCHANT, RECEIVED, FakeAdyen
from tests.gateways.contracts import ContractViolation

Client = TestClient[Litestar]
HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
OTHER_KEY = "11" * 32
CREDS = GatewayCredentials(
    API_KEY, sandbox=True, fields={"merchantAccount": MERCHANT, "hmacKey": HMAC_KEY}
)


def _item(**fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "additionalData": {},
        "amount": {"currency": "EUR", "value": 1130},
        "eventCode": "CAPTURE",
        "eventDate": "2025-03-14T09:26:53+01:00",
        "merchantAccountCode": MERCHANT,
        "merchantReference": "capture-1",
        "originalReference": "V4HZ4RBFJGXXGN82",
        "paymentMethod": "visa",
        "pspReference": "QFQTPCQ8HXSKGK82",
        "success": "true",
    }
    item.update(fields)
    return item


def _body(*items: dict[str, Any]) -> dict[str, Any]:
    return {"live": "false", "notificationItems": [{"NotificationRequestItem": i} for i in items]}


def signed(body: dict[str, Any], key: str = HMAC_KEY) -> dict[str, Any]:
    """``body`` with each item signed by Adyen's own library (``calculateHmac``)."""
    body = copy.deepcopy(body)
    for wrapper, result in zip(body["notificationItems"], library_hmac(body, key), strict=True):
        wrapper["NotificationRequestItem"].setdefault("additionalData", {})
        wrapper["NotificationRequestItem"]["additionalData"]["hmacSignature"] = result.hmac
    return body


def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [w["NotificationRequestItem"] for w in body["notificationItems"]]


# --- the contract: Adyen's models and Adyen's HmacValidator ------------------------------


def test_the_fakes_webhooks_are_adyens_notification_model(fake: FakeAdyen) -> None:
    fake.notifications.append(
        {
            "eventCode": "REFUND_FAILED",
            "pspReference": "QFQTPCQ8HXSKGK83",
            "originalReference": "V4HZ4RBFJGXXGN82",
            "success": True,
            "amount": {"currency": "USD", "value": 500},
            "merchantReference": "refund-1",
            "reason": "Refund failed",
        }
    )
    validate_notification(signed(fake.webhook(*fake.notifications)))


@pytest.mark.parametrize(
    ("change", "value"),
    [
        ("pspReferense", "QFQTPCQ8HXSKGK82"),  # misspelled field
        ("success", True),  # a boolean, where Adyen sends the string "true"
        ("eventCode", "CAPTURED"),  # not an event code
        ("amount", {"currency": "EUR", "value": "1130"}),  # value is a number
    ],
)
def test_the_notification_model_bites(change: str, value: object) -> None:
    item = _item(**{change: value})
    with pytest.raises(ContractViolation):
        validate_notification(_body(item))
    missing = _item()
    del missing["merchantAccountCode"]
    with pytest.raises(ContractViolation, match="merchantAccountCode"):
        validate_notification(_body(missing))


def _varied(seed: int, count: int) -> list[dict[str, Any]]:
    """Items with the awkward values a signature must survive: colons and backslashes,
    non-ASCII, empty and missing fields, large and zero amounts, every event code used."""
    rng = random.Random(seed)
    texts = ["", "order:1042", "ref\\with\\slashes", "Ünïcödé-ß", "a b", "x" * 80, "0"]
    codes = [*sorted(notifications._MOVES), "CHARGEBACK", "REPORT_AVAILABLE"]
    items = []
    for n in range(count):
        item = _item(
            eventCode=rng.choice(codes),
            merchantReference=rng.choice(texts),
            pspReference=f"{rng.randrange(16**16):016X}",
            amount={"currency": rng.choice(["EUR", "USD", "JPY"]), "value": rng.randrange(10**9)},
            success=rng.choice(["true", "false"]),
        )
        if n % 3 == 0:
            del item["originalReference"]
        items.append(item)
    return items


def test_payhub_signs_every_item_as_adyens_library_does() -> None:
    body = _body(*_varied(seed=14, count=60))

    library = library_hmac(body, HMAC_KEY)

    for item, theirs in zip(_items(body), library, strict=True):
        assert notifications.signature(item, HMAC_KEY) == theirs.hmac
        item["additionalData"]["hmacSignature"] = theirs.hmac
        assert notifications.signed_by(item, HMAC_KEY)
    # and the library validates what it signed (and what payhub would accept)
    assert all(r.valid is True for r in library_hmac(body, HMAC_KEY))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("amount", {"currency": "EUR", "value": 1131}),
        ("success", "false"),
        ("eventCode", "REFUND"),
        ("pspReference", "QFQTPCQ8HXSKGK83"),
        ("originalReference", "V4HZ4RBFJGXXGN83"),
        ("merchantAccountCode", "OtherECOM"),
        ("merchantReference", "capture-2"),
    ],
)
def test_a_tampered_item_fails_adyens_check_and_payhubs(field: str, value: object) -> None:
    body = signed(_body(_item()))
    item = _items(body)[0]
    assert notifications.signed_by(item, HMAC_KEY)
    assert library_hmac(body, HMAC_KEY)[0].valid is True

    item[field] = value

    assert library_hmac(body, HMAC_KEY)[0].valid is False
    assert not notifications.signed_by(item, HMAC_KEY)


def test_another_key_or_no_signature_fails_both() -> None:
    body = signed(_body(_item()), key=OTHER_KEY)
    assert library_hmac(body, HMAC_KEY)[0].valid is False
    assert not notifications.signed_by(_items(body)[0], HMAC_KEY)
    unsigned = _body(_item())
    assert "hmacSignature" in str(library_hmac(unsigned, HMAC_KEY)[0].valid)  # it throws
    assert not notifications.signed_by(_items(unsigned)[0], HMAC_KEY)


def test_the_adapter_reads_verified_items_and_marks_the_rest() -> None:
    good = _item()
    refund_failed = _item(
        eventCode="REFUND_FAILED", pspReference="QFQTPCQ8HXSKGK84", merchantReference="r-1"
    )
    body = signed(
        _body(
            good,
            refund_failed,
            _item(merchantAccountCode="OtherECOM"),
            _item(eventCode="CHARGEBACK", pspReference="QFQTPCQ8HXSKGK86"),
        )
    )
    unsigned = _item(pspReference="QFQTPCQ8HXSKGK85")  # added after signing
    body["notificationItems"].append({"NotificationRequestItem": unsigned})

    read = notifications.read(CREDS, json.dumps(body).encode(), None)

    assert [n.problem for n in read] == [
        None,
        None,
        "another merchant account",
        "event CHARGEBACK is not acted on",
        "the HMAC signature does not match",
    ]
    capture, failed = read[0], read[1]
    assert (capture.payment_reference, capture.reference) == (
        "V4HZ4RBFJGXXGN82",
        "QFQTPCQ8HXSKGK82",
    )
    assert (capture.moves, capture.success) == (frozenset({EventKind.CAPTURE}), True)
    assert capture.amount is not None
    assert str(capture.amount.amount) == "11.30"
    # REFUND_FAILED comes with success "true": the failure is the event.
    assert (failed.moves, failed.success) == (frozenset({EventKind.REFUND}), False)
    no_key = GatewayCredentials(API_KEY, sandbox=True, fields={"merchantAccount": MERCHANT})
    assert "no HMAC key" in str(notifications.read(no_key, json.dumps(body).encode(), None)[0])


# --- over HTTP, on both stores ------------------------------------------------------------


class Shop:
    """A merchant with Adyen credentials (HMAC key set), its headers and webhook path."""

    def __init__(self, client: Client, hub: PayHub, fake: FakeAdyen, account: Account) -> None:
        self.client, self.hub, self.fake, self.account = client, hub, fake, account
        self.headers = {**account.headers, "X-Merchant-Reference": "shop-ad"}
        self.url = ""

    def set_credentials(self, **extra: str) -> dict[str, Any]:
        put = self.client.put(
            "/api/merchant-accounts/shop-ad/credentials/adyen",
            json={
                "apiSecret": API_KEY,
                "environment": "Sandbox",
                "additionalFields": {"merchantAccount": MERCHANT, "hmacKey": HMAC_KEY, **extra},
            },
            headers=self.account.headers,
        )
        assert put.status_code == 200, put.text
        body: dict[str, Any] = put.json()
        self.url = urlsplit(body["notificationUrl"]).path
        return body

    def charge(self, capture: bool = True, holder: str = "Ada Lovelace") -> str:
        response = self.client.post(
            "/api/payments/charge",
            json={
                "amount": {"value": 30, "currency": "USD"},
                "gatewayName": "adyen",
                "paymentMethodToken": self.fake.encrypted_card(holder=holder),
                "capture": capture,
            },
            headers=self.headers,
        )
        assert response.status_code == 201, response.text
        tx_id: str = response.json()["transactionId"]
        return tx_id

    def move(self, tx_id: str, op: str, value: int | None = None) -> dict[str, Any]:
        body = {"amount": {"value": value, "currency": "USD"}} if value is not None else None
        response = self.client.post(
            f"/api/payments/adyen/transactions/{tx_id}/{op}", json=body, headers=self.headers
        )
        assert response.status_code == 200, response.text
        moved: dict[str, Any] = response.json()
        return moved

    def get(self, tx_id: str) -> dict[str, Any]:
        response = self.client.get(
            f"/api/payments/adyen/transactions/{tx_id}", headers=self.headers
        )
        assert response.status_code == 200, response.text
        got: dict[str, Any] = response.json()
        return got

    def post(self, body: dict[str, Any], **headers: str) -> httpx.Response:
        return self.client.post(
            self.url,
            content=json.dumps(body),
            headers={"Content-Type": "application/json", **headers},
        )

    def deliver(self, *notes: dict[str, Any], key: str = HMAC_KEY) -> httpx.Response:
        """Adyen's webhook for ``notes`` (the fake's), signed by Adyen's library, posted."""
        response = self.post(signed(self.fake.webhook(*notes), key))
        assert response.status_code == 200, response.text
        assert response.text == "[accepted]"
        return response

    def last(self, code: str) -> dict[str, Any]:
        return next(n for n in reversed(self.fake.notifications) if n["eventCode"] == code)

    def events(self, tx_id: str) -> list[str]:
        with self.hub.store.unit_of_work(readonly=True) as uow:
            rows = uow.events.list(EventQuery(self.account.provider.id, object_id=tx_id), limit=50)
        return [e.type for e in reversed(rows)]


@pytest.fixture
def shop(
    client: Client,
    hub: PayHub,
    fake: FakeAdyen,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> Shop:
    make_merchant(sandbox_provider, "shop-ad")
    shop = Shop(client, hub, fake, sandbox_provider)
    shop.set_credentials()
    return shop


def test_the_credentials_give_the_webhook_url_and_never_the_hmac_key(
    shop: Shop, client: Client
) -> None:
    again = shop.set_credentials()  # the URL stays when the credentials are replaced
    listed = client.get(
        "/api/merchant-accounts/shop-ad/credentials", headers=shop.account.headers
    ).json()["data"]

    assert urlsplit(again["notificationUrl"]).path == shop.url
    assert shop.url.startswith("/webhooks/gateways/adyen/gwn_")
    assert listed[0]["notificationUrl"] == again["notificationUrl"]
    assert "hmacKey" in again["additionalFieldNames"]
    assert HMAC_KEY not in json.dumps([again, listed])
    with shop.hub.store.unit_of_work(readonly=True) as uow:
        merchant = uow.merchants.get_by_reference(shop.account.provider.id, "shop-ad")
        assert merchant is not None
        stored = uow.credentials.get(merchant.id, "adyen")
    assert stored is not None
    assert HMAC_KEY.encode() not in stored.sealed


def test_a_capture_webhook_settles_the_pending_capture(shop: Shop) -> None:
    tx_id = shop.charge(capture=False)
    pending = shop.move(tx_id, "capture", 20)
    assert pending["status"] == "CapturePending"
    assert "payment.captured" not in shop.events(tx_id)

    shop.deliver(shop.last("CAPTURE"))

    settled = shop.get(tx_id)
    assert settled["status"] == "Captured"
    assert settled["capturedAmount"]["value"] == 20
    assert settled["settled"] is True
    last = settled["events"][-1]
    assert (last["kind"], last["outcome"]) == ("status", "succeeded")
    assert last["gatewayReference"] == shop.last("CAPTURE")["pspReference"]
    assert "CAPTURE" in last["message"]
    assert shop.events(tx_id) == ["payment.succeeded", "payment.captured"]


def test_a_retried_delivery_changes_nothing(shop: Shop) -> None:
    tx_id = shop.charge(capture=False)
    shop.move(tx_id, "capture")
    shop.deliver(shop.last("CAPTURE"))
    once = shop.get(tx_id)

    shop.deliver(shop.last("CAPTURE"))  # Adyen retries whatever it thinks was not accepted
    shop.deliver(shop.last("CAPTURE"), shop.last("CAPTURE"))

    assert shop.get(tx_id) == once
    assert shop.events(tx_id).count("payment.captured") == 1


def test_refund_webhooks_settle_or_release_the_refund(shop: Shop) -> None:
    tx_id = shop.charge()
    assert shop.move(tx_id, "refund", 10)["status"] == "RefundPending"
    first = shop.last("REFUND")
    shop.deliver(first)
    done = shop.get(tx_id)
    assert (done["status"], done["refundedAmount"]["value"]) == ("PartiallyRefunded", 10)

    second = shop.move(tx_id, "refund", 5)
    assert (second["status"], second["refundedAmount"]["value"]) == ("RefundPending", 15)
    shop.deliver(first)  # a late retry of the first refund's webhook
    assert shop.get(tx_id)["status"] == "RefundPending"
    failed = {**shop.last("REFUND"), "eventCode": "REFUND_FAILED", "success": True}
    shop.deliver(failed)

    released = shop.get(tx_id)
    assert (released["status"], released["refundedAmount"]["value"]) == ("PartiallyRefunded", 10)
    assert shop.events(tx_id) == ["payment.succeeded", "payment.refunded"]
    shop.move(tx_id, "refund", 20)  # the released amount can be refunded again
    shop.deliver({**shop.last("REFUND"), "success": True})
    assert shop.get(tx_id)["status"] == "Refunded"
    assert shop.events(tx_id).count("payment.refunded") == 2


def test_a_refund_answered_false_releases_the_reservation(shop: Shop) -> None:
    tx_id = shop.charge()
    shop.move(tx_id, "refund", 30)

    shop.deliver({**shop.last("REFUND"), "success": False, "reason": "Refund failed"})

    after = shop.get(tx_id)
    assert (after["status"], after["refundedAmount"]["value"]) == ("Captured", 0)
    assert "Refund failed" in after["events"][-1]["message"]
    assert "payment.refunded" not in shop.events(tx_id)


def test_cancellation_webhooks_void_or_restore_the_authorization(shop: Shop) -> None:
    voided = shop.charge(capture=False)
    assert shop.move(voided, "void")["status"] == "VoidPending"
    shop.deliver(shop.last("CANCELLATION"))
    assert shop.get(voided)["status"] == "Voided"
    assert shop.events(voided) == ["payment.succeeded", "payment.voided"]

    kept = shop.charge(capture=False)
    shop.move(kept, "void")
    shop.deliver({**shop.last("CANCELLATION"), "success": False})
    assert shop.get(kept)["status"] == "Authorized"  # capturable again
    assert shop.move(kept, "capture")["status"] == "CapturePending"


def test_a_failed_capture_fails_the_payment(shop: Shop) -> None:
    tx_id = shop.charge(capture=False)
    shop.move(tx_id, "capture")

    shop.deliver({**shop.last("CAPTURE"), "eventCode": "CAPTURE_FAILED", "success": True})

    after = shop.get(tx_id)
    assert (after["status"], after["capturedAmount"]["value"]) == ("Failed", 0)
    assert "payment.captured" not in shop.events(tx_id)


def test_an_authorisation_webhook_settles_a_payment_adyen_only_received(shop: Shop) -> None:
    tx_id = shop.charge(holder=RECEIVED)
    assert shop.get(tx_id)["status"] == "Unknown"

    shop.deliver(shop.last("AUTHORISATION"))

    assert shop.get(tx_id)["status"] == "Captured"
    assert shop.events(tx_id) == ["payment.succeeded"]


def test_what_cannot_be_trusted_or_placed_changes_nothing(shop: Shop) -> None:
    tx_id = shop.charge(capture=False)
    shop.move(tx_id, "capture")
    before = shop.get(tx_id)
    capture = shop.last("CAPTURE")
    elsewhere = shop.fake.webhook(capture)
    _items(elsewhere)[0]["merchantAccountCode"] = "OtherECOM"
    other_account = signed(elsewhere)  # properly signed, for another merchant account
    tampered = signed(shop.fake.webhook(capture))
    _items(tampered)[0]["amount"]["value"] = 1

    with capture_logs() as logs:
        shop.deliver(capture, key=OTHER_KEY)  # a signature from another key
        assert shop.post(tampered).text == "[accepted]"
        assert shop.post(other_account).text == "[accepted]"
        shop.deliver({**capture, "pspReference": "ZZZZZZZZZZZZZZZZ"})  # not the pending move
        shop.deliver({**capture, "originalReference": "YYYYYYYYYYYYYYYY"})  # unknown payment
        shop.deliver({**capture, "eventCode": "CHARGEBACK"})

    assert shop.get(tx_id) == before
    reasons = [e.get("reason") for e in logs if e["event"] == "gateway_notification_ignored"]
    assert reasons == [
        "the HMAC signature does not match",
        "the HMAC signature does not match",
        "another merchant account",
        "answers nothing open (duplicate, settled or another move)",
        "unknown payment",
        "event CHARGEBACK is not acted on",
    ]
    assert HMAC_KEY not in repr(logs)
    assert API_KEY not in repr(logs)


def test_basic_authentication_when_the_merchant_sets_it(shop: Shop) -> None:
    shop.set_credentials(notificationUsername="adyen-hooks", notificationPassword="s3cret-pw")
    tx_id = shop.charge(capture=False)
    shop.move(tx_id, "capture")
    body = signed(shop.fake.webhook(shop.last("CAPTURE")))
    wrong = "Basic " + base64.b64encode(b"adyen-hooks:guess").decode()

    assert shop.post(body).status_code == 401
    assert shop.post(body, Authorization=wrong).status_code == 401
    assert shop.get(tx_id)["status"] == "CapturePending"

    right = "Basic " + base64.b64encode(b"adyen-hooks:s3cret-pw").decode()
    accepted = shop.post(body, Authorization=right)
    assert (accepted.status_code, accepted.text) == (200, "[accepted]")
    assert shop.get(tx_id)["status"] == "Captured"


def test_an_unknown_address_or_a_body_that_is_no_webhook_is_refused(shop: Shop) -> None:
    body = signed(_body(_item()))
    assert shop.client.post("/webhooks/gateways/adyen/gwn_nope", json=body).status_code == 404
    assert shop.client.post(shop.url.replace("/adyen/", "/stripe/"), json=body).status_code == 404
    assert shop.post({"notificationItems": "none"}).status_code == 400


def test_luhn_valid_psp_references_pass_the_card_guard_and_card_fields_do_not(shop: Shop) -> None:
    from payhub.domain.cardnumbers import contains_card_number

    psp = "8800000000000013"  # Adyen's older references are 16 digits; this one passes Luhn
    assert contains_card_number(psp)
    body = signed(_body(_item(pspReference=psp, originalReference=psp)))
    assert shop.post(body).text == "[accepted]"

    carded = copy.deepcopy(body)
    _items(carded)[0]["additionalData"]["cardNumber"] = "x"
    assert shop.post(carded).json()["type"] == "/problems/raw-card-data"
    stray = {**body, "live": "4242 4242 4242 4242"}  # outside notificationItems
    assert shop.post(stray).json()["type"] == "/problems/raw-card-data"
