"""Over HTTP: Twilio's inbound webhook (signature, STOP/START/HELP into the consent history)
and a merchant's messages API. Each test checks what the database holds afterwards."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.messaging.signature import twilio_signature
from payhub.domain.customers import Customer
from payhub.domain.messaging import Channel, MessageStatus, TextKind
from payhub.hub import MerchantScope
from payhub.services.worker import Worker
from tests.conftest import Account
from tests.messaging.conftest import AUTH_TOKEN, PHONE, FakeSms
from tests.messaging.test_outbox import NOON_NY, send_invoice

Client = TestClient[Litestar]
PATH = "/webhooks/twilio/sms"
PUBLIC_URL = "https://pay.example.com" + PATH


def inbound(
    client: Client,
    body: str,
    *,
    sender: str = PHONE,
    sign_with: str | None = AUTH_TOKEN,
    url: str = PUBLIC_URL,
    path: str = PATH,
) -> Any:
    form = {
        "MessageSid": "SM" + "f" * 32,
        "SmsSid": "SM" + "f" * 32,
        "AccountSid": "AC" + "0" * 32,
        "From": sender,
        "To": "+15005550006",
        "Body": body,
        "NumMedia": "0",
    }
    # each reply comes a second after whatever came before, so histories sort by time
    client.app.state.hub.deps.clock.advance(timedelta(seconds=1))
    headers = {}
    if sign_with is not None:
        headers["X-Twilio-Signature"] = twilio_signature(url, list(form.items()), sign_with)
    return client.post(path, data=form, headers=headers)


@pytest.fixture
def texting_on(shop: MerchantScope, hub: PayHub) -> MerchantScope:
    hub.deps.clock.set(NOON_NY)  # type: ignore[attr-defined]
    shop.texting.switch(list(TextKind), True, time_zone="America/New_York")
    return shop


def history(shop: MerchantScope, customer: Customer) -> list[Any]:
    return shop.customers.consent_history(customer.id).items


def blocked(hub: PayHub, phone: str = PHONE) -> bool:
    with hub.store.unit_of_work(readonly=True) as uow:
        return uow.messages.is_blocked(phone)


# --- signature ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", ["missing", "wrong token", "other url", "tampered"], ids=lambda c: c
)
def test_unsigned_or_badly_signed_requests_are_401_and_change_nothing(
    client: Client,
    hub: PayHub,
    shop: MerchantScope,
    new_customer: Callable[..., Customer],
    case: str,
) -> None:
    customer = new_customer()
    if case == "missing":
        response = inbound(client, "STOP", sign_with=None)
    elif case == "wrong token":
        response = inbound(client, "STOP", sign_with="not-the-token")
    elif case == "other url":
        response = inbound(client, "STOP", url="http://testserver" + PATH)
    else:
        form = {"From": PHONE, "Body": "HELP"}
        signature = twilio_signature(PUBLIC_URL, list(form.items()), AUTH_TOKEN)
        response = client.post(
            PATH, data={**form, "Body": "STOP"}, headers={"X-Twilio-Signature": signature}
        )
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == "/problems/unauthenticated"
    assert not blocked(hub)
    assert shop.customers.consent(customer.id).consent is True
    assert len(history(shop, customer)) == 1


def test_signature_covers_the_query_string(
    client: Client, hub: PayHub, shop: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    new_customer()
    good = inbound(client, "STOP", url=PUBLIC_URL + "?v=1", path=PATH + "?v=1")
    assert good.status_code == 200
    assert blocked(hub)


# --- keywords -------------------------------------------------------------------------------


def test_stop_blocks_withdraws_consent_and_records_it(
    client: Client,
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    customer = new_customer()
    send_invoice(hub, texting_on, customer.id)  # a pay link is waiting for the worker
    response = inbound(client, "Stop")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    assert response.text == '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'
    assert blocked(hub)
    assert texting_on.customers.consent(customer.id).consent is False
    latest = history(texting_on, customer)[0]
    assert (latest.consent, latest.phone, latest.source.value, latest.recorded_by) == (
        False,
        PHONE,
        "Keyword",
        "keyword",
    )
    assert latest.reason == f"STOP reply: consent withdrawn, number blocked (SM{'f' * 32})"
    Worker(hub.deps, hub.job_handlers(), "w").run_once()
    with hub.store.unit_of_work(readonly=True) as uow:
        (text,) = [m for m in uow.messages.list(None) if m.channel is Channel.SMS]
    assert (text.status, text.reason) == (MessageStatus.REFUSED, "NoConsent")
    assert sms.sent == []


@pytest.mark.parametrize(
    "word", ["STOPALL", "unsubscribe", "Cancel", "END", "quit", "OPTOUT", "REVOKE", " stop! "]
)
@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_every_opt_out_word_stops(
    client: Client,
    hub: PayHub,
    shop: MerchantScope,
    new_customer: Callable[..., Customer],
    word: str,
) -> None:
    customer = new_customer()
    assert inbound(client, word).status_code == 200
    assert blocked(hub)
    assert shop.customers.consent(customer.id).consent is False


def test_start_unblocks_but_does_not_restore_consent(
    client: Client,
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    customer = new_customer()
    inbound(client, "STOP")
    assert inbound(client, "unstop").status_code == 200
    assert not blocked(hub)
    assert texting_on.customers.consent(customer.id).consent is False
    latest = history(texting_on, customer)[0]
    assert latest.consent is False
    assert latest.reason is not None
    assert latest.reason.startswith("UNSTOP reply: number unblocked; consent must be given")
    send_invoice(hub, texting_on, customer.id)
    with hub.store.unit_of_work(readonly=True) as uow:
        refused = [m for m in uow.messages.list(None) if m.channel is Channel.SMS]
    assert refused[0].reason == "NoConsent"
    # consent given again: texts flow
    texting_on.customers.record_consent(customer.id, True, None)
    send_invoice(hub, texting_on, customer.id)
    Worker(hub.deps, hub.job_handlers(), "w").run_once()
    assert [s.to for s in sms.sent] == [PHONE]


def test_repeated_stop_records_once(
    client: Client, hub: PayHub, shop: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer()
    inbound(client, "STOP")
    inbound(client, "STOP")
    assert len(history(shop, customer)) == 2  # given, then withdrawn by the first STOP


def test_stop_reaches_every_merchant_sharing_the_number(
    client: Client,
    hub: PayHub,
    shop: MerchantScope,
    new_customer: Callable[..., Customer],
) -> None:
    from payhub.domain.customers import CustomerName
    from payhub.services.customers import CustomerInput

    ours = new_customer()
    provider = hub.operators.list_providers()[0]
    scope = hub.provider(hub.as_provider(provider.id))
    scope.merchants.create("bakery", "Corner Bakery")
    theirs = scope.merchant("bakery").customers.create(
        CustomerInput(name=CustomerName("Ada", None), phone=PHONE, sms_consent=False)
    )
    inbound(client, "STOP")
    assert shop.customers.consent(ours.id).consent is False
    records = scope.merchant("bakery").customers.consent_history(theirs.id).items
    assert records[0].reason is not None
    assert records[0].reason.startswith("STOP reply: number blocked")


def test_help_answers_with_the_merchants_name(
    client: Client,
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
) -> None:
    customer = new_customer()
    response = inbound(client, "help")
    assert response.status_code == 200
    assert response.text.startswith(
        '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Acme Plumbing: payment'
    )
    assert "Reply STOP to opt out" in response.text
    assert not blocked(hub)
    assert len(history(texting_on, customer)) == 1  # HELP changes nothing


def test_anything_else_is_ignored(
    client: Client, hub: PayHub, shop: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer()
    response = inbound(client, "please stop sending me these")
    assert response.status_code == 200
    assert response.text.endswith("<Response></Response>")
    assert not blocked(hub)
    assert shop.customers.consent(customer.id).consent is True


# --- the merchant's view --------------------------------------------------------------------


@pytest.fixture
def api_shop(
    client: Client,
    hub: PayHub,
    new_provider: Callable[..., Account],
) -> tuple[Account, MerchantScope]:
    account = new_provider("Texting provider")
    scope = hub.provider(hub.as_provider(account.provider.id))
    scope.merchants.create("acme", "Acme Plumbing")
    return account, scope.merchant("acme")


def test_customer_messages_newest_first_and_paged(
    client: Client,
    hub: PayHub,
    api_shop: tuple[Account, MerchantScope],
) -> None:
    account, shop = api_shop
    hub.deps.clock.set(NOON_NY)  # type: ignore[attr-defined]
    from payhub.domain.customers import CustomerName
    from payhub.services.customers import CustomerInput

    customer = shop.customers.create(
        CustomerInput(
            name=CustomerName("Ada", None), email="ada@example.com", phone=PHONE, sms_consent=True
        )
    )
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(account.provider.id, "acme")
        assert merchant is not None
        from payhub.services import notices
        from tests.messaging.test_outbox import DUE

        notices.invoice_sent(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer.id,
            invoice_number="INV-1",
            amount_due=DUE,
            pay_url="https://pay.example.com/pay/x",
        )
    base = f"/api/merchant-accounts/acme/customers/{customer.id}/messages"
    first = client.get(base, params={"limit": 1}, headers=account.headers)
    assert first.status_code == 200, first.text
    page = first.json()
    assert page["hasMore"] is True
    assert len(page["data"]) == 1
    second = client.get(
        base, params={"limit": 1, "startingAfter": page["nextCursor"]}, headers=account.headers
    ).json()
    both = page["data"] + second["data"]
    assert {m["channel"] for m in both} == {"Sms", "Email"}
    text = next(m for m in both if m["channel"] == "Sms")
    assert (text["status"], text["reason"], text["kind"], text["to"]) == (
        "Refused",
        "KindDisabled",
        "PayLink",
        PHONE,
    )
    refused = client.get(base, params={"status": "refused"}, headers=account.headers).json()
    assert [m["messageId"] for m in refused["data"]] == [text["messageId"]]
    bad = client.get(base, params={"status": "Lost"}, headers=account.headers)
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["field"] == "status"
    every = client.get("/api/merchant-accounts/acme/messages", headers=account.headers).json()
    assert len(every["data"]) == 2
    missing = client.get(
        "/api/merchant-accounts/acme/customers/cus_nope/messages", headers=account.headers
    )
    assert missing.status_code == 404


def test_texting_settings_read(client: Client, api_shop: tuple[Account, MerchantScope]) -> None:
    account, shop = api_shop
    off = client.get("/api/merchant-accounts/acme/texting", headers=account.headers).json()
    assert off == {
        "timeZone": None,
        "kinds": [
            {"kind": "PayLink", "enabled": False},
            {"kind": "Receipt", "enabled": False},
            {"kind": "FailedPayment", "enabled": False},
            {"kind": "ScheduleReminder", "enabled": False},
        ],
    }
    shop.texting.switch([TextKind.RECEIPT], True, time_zone="America/Chicago")
    on = client.get("/api/merchant-accounts/acme/texting", headers=account.headers).json()
    assert on["timeZone"] == "America/Chicago"
    assert {k["kind"] for k in on["kinds"] if k["enabled"]} == {"Receipt"}


def test_the_merchant_reads_every_consent_change_and_its_source_over_the_api(
    client: Client, hub: PayHub, api_shop: tuple[Account, MerchantScope]
) -> None:
    """Given by API, withdrawn by STOP, START (block lifted, consent not restored), given
    again by API: four records, each with its source, read through the merchant's API."""
    account, _ = api_shop
    base = "/api/merchant-accounts/acme/customers"
    made = client.post(
        base,
        json={"name": {"first": "Ada"}, "phone": "+1 415 555 2671", "smsConsent": True},
        headers=account.headers,
    )
    assert made.status_code == 201, made.text
    customer_id = made.json()["customerId"]
    assert inbound(client, "STOP").status_code == 200
    assert inbound(client, "START").status_code == 200
    current = client.get(f"{base}/{customer_id}/sms-consent", headers=account.headers).json()
    assert (current["consent"], current["source"]) == (False, "Keyword")
    hub.deps.clock.advance(timedelta(seconds=1))  # type: ignore[attr-defined]
    again = client.put(
        f"{base}/{customer_id}/sms-consent", json={"consent": True}, headers=account.headers
    )
    assert again.status_code == 200, again.text
    trail = client.get(f"{base}/{customer_id}/sms-consent/history", headers=account.headers)
    assert trail.status_code == 200, trail.text
    rows = [
        (r["consent"], r["phone"], r["source"], (r["reason"] or "").split(" (")[0])
        for r in trail.json()["data"]
    ]
    assert rows[0][:3] == (True, PHONE, "Api")
    assert rows[1] == (
        False,
        PHONE,
        "Keyword",
        "START reply: number unblocked; consent must be given again",
    )
    assert rows[2] == (False, PHONE, "Keyword", "STOP reply: consent withdrawn, number blocked")
    assert rows[3][:3] == (True, PHONE, "Api")
    assert len(rows) == 4
    assert not blocked(hub)
