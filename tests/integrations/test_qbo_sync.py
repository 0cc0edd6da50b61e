"""QuickBooks Online over HTTP, on SQLite and PostgreSQL: connect (the portal's flow, in
process), then the API's status, sync-now, sync-customers and disconnect, with the worker
running the syncs against the fake QuickBooks Online."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.accounting import AccountingSystem, LinkKind, decode_tokens, encode_tokens
from payhub.domain.invoices import InvoiceStatus, PaymentSourceKind
from payhub.domain.payments import MethodType
from tests.integrations.conftest import REALM, Sleeps, connect, work
from tests.integrations.fakes.qbo import FakeQuickBooks
from tests.invoices.conftest import Invoicing

QBO = AccountingSystem.ONLINE
JSON = {"content-type": "application/json"}


def connected(shop: Invoicing, qbo: FakeQuickBooks) -> None:
    connect(
        shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(shop.ref), qbo
    )


def sync(shop: Invoicing, path: str = "/accounting-online/sync-now") -> dict[str, Any]:
    response = shop.post(path)
    assert response.status_code == 202, response.text
    run: dict[str, Any] = response.json()
    assert run["status"] == "queued"
    assert response.headers["location"].endswith(f"/sync-runs/{run['runId']}")
    work(shop.hub)
    return shop.ok(shop.get(f"/accounting-online/sync-runs/{run['runId']}"))


def product(shop: Invoicing, name: str, kind: str = "Service", price: str = "12.50") -> str:
    body = shop.created("/products", {"name": name, "unitPrice": price, "kind": kind})
    return str(body["productId"])


def sent_invoice(shop: Invoicing, **fields: Any) -> str:
    number = str(shop.invoice(**fields)["invoiceNumber"])
    shop.ok(shop.post(f"/invoices/{number}/send"))
    return number


def links(shop: Invoicing, kind: LinkKind) -> dict[str, str | None]:
    rows = shop.read(lambda uow, m: uow.accounting.links(m, QBO, kind))
    return {r.local_id: r.remote_id for r in rows}


def test_status_before_connecting_and_sync_refused(shop: Invoicing) -> None:
    status = shop.ok(shop.get("/accounting-online"))
    assert status["status"] == "notConnected"
    assert status["lastSync"] is None
    refused = shop.post("/accounting-online/sync-now")
    assert refused.status_code == 409
    assert "portal" in refused.json()["detail"]


def test_sync_now_pushes_customers_items_invoices_and_payments(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, hub: PayHub
) -> None:
    widget = product(shop, "Widget", "Inventory", "12.50")
    install = product(shop, "Install", "Service", "40")
    product(shop, "Cable", "NonInventory", "3")
    number = sent_invoice(
        shop,
        customerId=customer["customerId"],
        taxRatePercent=8,
        lineItems=[
            {"description": "Widget", "quantity": 2, "unitPrice": 12.5, "productId": widget},
            {"description": "Labour", "quantity": 1, "unitPrice": 40, "isTaxable": False},
        ],
        shipToAddress={"line1": "9 Dock Rd", "city": "Leeds", "postalCode": "LS1", "country": "GB"},
    )
    connected(shop, qbo)
    status = shop.ok(shop.get("/accounting-online"))
    assert status["status"] == "connected"
    assert status["companyName"] == "Acme Books LLC"
    assert status["companyId"] == REALM
    assert status["environment"] == "sandbox"

    run = sync(shop)
    assert run["status"] == "succeeded", run
    assert run["errors"] == []
    assert run["counts"]["customersCreated"] == 1
    assert run["counts"]["itemsCreated"] == 3 + 1  # three products and the shared item
    assert run["counts"]["invoicesCreated"] == 1

    [remote_customer] = qbo.records(REALM, "Customer")
    assert remote_customer["DisplayName"] == "Ada Lovelace"
    assert remote_customer["PrimaryEmailAddr"] == {"Address": "ada@example.com"}
    assert remote_customer["BillAddr"]["Line1"] == "1 Analytical Way"
    types = {i["Name"]: i["Type"] for i in qbo.records(REALM, "Item")}
    assert types == {
        "Widget": "Inventory",
        "Install": "Service",
        "Cable": "NonInventory",
        "payhub sales": "Service",
    }
    [remote_invoice] = qbo.records(REALM, "Invoice")
    assert remote_invoice["DocNumber"] == number
    assert remote_invoice["CustomerRef"] == {"value": remote_customer["Id"]}
    item_ids = {i["Name"]: i["Id"] for i in qbo.records(REALM, "Item")}
    line_items = [ln["SalesItemLineDetail"]["ItemRef"]["value"] for ln in remote_invoice["Line"]]
    assert line_items == [item_ids["Widget"], item_ids["payhub sales"]]  # linked, then shared
    tax_codes = [ln["SalesItemLineDetail"]["TaxCodeRef"]["value"] for ln in remote_invoice["Line"]]
    assert tax_codes == ["TAX", "NON"]
    assert remote_invoice["TxnTaxDetail"] == {"TotalTax": 2}  # 8 % of 25.00, its own line
    assert remote_invoice["ShipAddr"]["Line1"] == "9 Dock Rd"  # invoice rule 6
    assert remote_invoice["BillAddr"]["Line1"] == "1 Analytical Way"
    assert Decimal(str(remote_invoice["TotalAmt"])) == Decimal("67.00")

    # Products report their link (product rule 4); the run is the last sync result.
    assert shop.ok(shop.get(f"/products/{widget}"))["accountingItemLinked"] is True
    assert shop.ok(shop.get(f"/products/{install}"))["accountingItemLinked"] is True
    last = shop.ok(shop.get("/accounting-online"))["lastSync"]
    assert last["runId"] == run["runId"]

    # Syncing again pushes nothing twice.
    again = sync(shop)
    assert again["status"] == "succeeded"
    assert "invoicesCreated" not in again["counts"]
    assert len(qbo.creates) == 1 + 4 + 1

    # The tokens are stored sealed: the row holds no token in the clear.
    connection = shop.read(lambda uow, m: uow.accounting.get(m, QBO))
    assert connection.tokens_sealed is not None
    grant = decode_tokens(hub.deps.secrets.open(connection.tokens_sealed))
    assert grant.access_token.encode() not in connection.tokens_sealed
    assert grant.refresh_token.encode() not in connection.tokens_sealed


def test_a_paid_invoice_is_pushed_as_a_payment_against_its_invoice(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks
) -> None:
    connected(shop, qbo)
    number = sent_invoice(shop, customerId=customer["customerId"])
    work(shop.hub)  # invoice.sent pushed the invoice, best effort, without a sync
    assert [i["DocNumber"] for i in qbo.records(REALM, "Invoice")] == [number]
    shop.hub.pay_pages.pay(
        shop.token(number),
        amount=None,
        payment_token="sim_card_ok",
        method_type=MethodType.CARD,
        attempt_id="a1",
    )
    work(shop.hub)  # invoice.paid pushes the payment
    [payment] = qbo.records(REALM, "Payment")
    [invoice] = qbo.records(REALM, "Invoice")
    assert payment["Line"][0]["LinkedTxn"] == [{"TxnId": invoice["Id"], "TxnType": "Invoice"}]
    assert Decimal(str(payment["TotalAmt"])) == Decimal(25)
    assert invoice["Balance"] == 0
    assert len(links(shop, LinkKind.PAYMENT)) == 1


def test_paid_in_quickbooks_becomes_paid_here_on_the_next_check(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock
) -> None:
    connected(shop, qbo)
    number = sent_invoice(shop, customerId=customer["customerId"])
    other = sent_invoice(shop, customerId=customer["customerId"])
    work(shop.hub)
    remote = links(shop, LinkKind.INVOICE)[number]
    assert remote is not None
    clock.advance(timedelta(minutes=10))
    qbo.receive_payment(REALM, remote)
    run = sync(shop)
    assert run["counts"]["invoicesMarkedPaid"] == 1
    paid = shop.stored(number)
    assert paid.status is InvoiceStatus.PAID
    assert paid.payments[-1].source is PaymentSourceKind.ACCOUNTING_ONLINE
    assert shop.stored(other).status is InvoiceStatus.SENT
    # The settlement is not pushed back as a payment of its own.
    assert qbo.records(REALM, "Payment")[0]["TotalAmt"] == 25
    assert len(qbo.records(REALM, "Payment")) == 1
    assert sync(shop)["counts"].get("invoicesMarkedPaid") is None  # the cursor moved on


def test_a_foreign_currency_invoice_is_refused_with_a_clear_result(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks
) -> None:
    number = sent_invoice(shop, customerId=customer["customerId"], currency="EUR")
    connected(shop, qbo)
    run = sync(shop)
    assert run["status"] == "succeeded"
    assert run["counts"]["invoicesRefused"] == 1
    assert any(number in e and "EUR" in e and "USD" in e for e in run["errors"])
    assert qbo.records(REALM, "Invoice") == []


def test_sync_customers_matches_on_account_number_and_imports_the_rest(
    shop: Invoicing, qbo: FakeQuickBooks
) -> None:
    ada = shop.created("/customers", {"name": {"first": "Ada"}, "accountNumber": "A-1"})
    bob = shop.created("/customers", {"name": {"first": "Bob"}})
    qbo.add_customer(REALM, DisplayName="Ada L.", Notes="payhub account: A-1")
    qbo.add_customer(
        REALM,
        DisplayName="Carol's Bakery",
        CompanyName="Carol's Bakery",
        PrimaryEmailAddr={"Address": "carol@example.com"},
        PrimaryPhone={"FreeFormNumber": "call the shop"},  # not a number payhub accepts
    )
    connected(shop, qbo)
    run = sync(shop, "/accounting-online/sync-customers")
    assert run["status"] == "succeeded", run
    assert run["counts"] == {"customersCreated": 1, "customersImported": 1, "customersMatched": 1}
    linked = links(shop, LinkKind.CUSTOMER)
    assert linked[ada["customerId"]] == qbo.records(REALM, "Customer")[0]["Id"]
    assert linked[bob["customerId"]] is not None
    names = sorted(
        c["name"]["company"] or c["name"]["first"] for c in shop.ok(shop.get("/customers"))["data"]
    )
    assert names == ["Ada", "Bob", "Carol's Bakery"]
    carol = next(c for c in shop.ok(shop.get("/customers"))["data"] if c["name"]["company"])
    assert carol["email"] == "carol@example.com"
    assert carol["phone"] is None
    assert len(qbo.records(REALM, "Customer")) == 3  # Bob pushed; nobody twice
    work(shop.hub)  # the imported customer's customer.created finds it linked
    assert len(qbo.records(REALM, "Customer")) == 3


def test_an_expired_access_token_is_refreshed_and_the_rotated_refresh_token_stored(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock, hub: PayHub
) -> None:
    connected(shop, qbo)
    before = shop.read(lambda uow, m: uow.accounting.get(m, QBO)).tokens_sealed
    old = decode_tokens(hub.deps.secrets.open(before))
    clock.advance(timedelta(hours=2))
    assert sync(shop)["status"] == "succeeded"
    assert qbo.refreshes == 1
    after = shop.read(lambda uow, m: uow.accounting.get(m, QBO)).tokens_sealed
    new = decode_tokens(hub.deps.secrets.open(after))
    assert new.refresh_token != old.refresh_token  # rotated and replaced at once
    assert new.access_token != old.access_token
    assert sync(shop)["status"] == "succeeded"  # within the hour: no second refresh
    assert qbo.refreshes == 1


@pytest.mark.parametrize("cause", ["revoked", "expired"])
def test_a_revoked_or_expired_grant_shows_as_disconnected_with_the_reason(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock, cause: str
) -> None:
    connected(shop, qbo)
    clock.advance(timedelta(hours=2))
    if cause == "revoked":
        qbo.revoke_grant(REALM)
    else:
        qbo.expire_refresh_tokens()
    run = sync(shop)
    assert run["status"] == "failed"
    status = shop.ok(shop.get("/accounting-online"))
    assert status["status"] == "disconnected"
    assert "refused the grant" in status["statusReason"]
    assert status["lastSync"]["runId"] == run["runId"]
    assert shop.post("/accounting-online/sync-now").status_code == 409
    connected(shop, qbo)  # reconnecting is allowed at any time
    assert shop.ok(shop.get("/accounting-online"))["status"] == "connected"
    assert sync(shop)["status"] == "succeeded"


def test_throttling_and_outages_are_retried_honouring_retry_after(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, sleeps: Sleeps
) -> None:
    connected(shop, qbo)
    qbo.throttle(2, retry_after="7")
    qbo.throttle(1, retry_after=None, status=503)
    run = sync(shop)
    assert run["status"] == "succeeded"
    assert sleeps.waits == [7.0, 7.0, 4.0]  # Retry-After twice, then the third backoff step
    assert len(qbo.records(REALM, "Customer")) == 1


def test_throttling_beyond_the_adapters_retries_leaves_the_run_to_the_worker(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock
) -> None:
    connected(shop, qbo)
    qbo.throttle(4, retry_after="1")
    response = shop.post("/accounting-online/sync-now")
    run_id = response.json()["runId"]
    first = work(shop.hub)
    assert first.retried["accounting"] == 1
    running = shop.ok(shop.get(f"/accounting-online/sync-runs/{run_id}"))
    assert running["status"] == "running"
    assert running["step"] is not None  # progress is readable
    clock.advance(timedelta(minutes=10))
    work(shop.hub)
    done = shop.ok(shop.get(f"/accounting-online/sync-runs/{run_id}"))
    assert done["status"] == "succeeded"
    assert len(qbo.records(REALM, "Customer")) == 1


def test_a_stale_sync_token_is_recovered_on_update(
    shop: Invoicing, qbo: FakeQuickBooks, clock: FixedClock
) -> None:
    widget = product(shop, "Widget")
    connected(shop, qbo)
    sync(shop)
    [item] = qbo.records(REALM, "Item")[:1]
    qbo.edit(REALM, "Item", item["Id"], Description="edited in QuickBooks")  # SyncToken 0 -> 1
    clock.advance(timedelta(minutes=1))
    shop.ok(shop.put(f"/products/{widget}", {"name": "Widget Pro", "unitPrice": "15"}))
    run = sync(shop)
    assert run["status"] == "succeeded", run
    assert run["counts"]["itemsUpdated"] == 1
    stale = [r for r in qbo.log if r.method == "POST" and b'"SyncToken":"0"' in r.content]
    assert stale  # the first try carried the stale token
    updated = qbo.companies[REALM].entities["Item"][item["Id"]]
    assert updated["Name"] == "Widget Pro"
    assert updated["SyncToken"] == "2"
    assert len([i for i in qbo.records(REALM, "Item") if i["Name"].startswith("Widget")]) == 1


def test_a_lost_answer_is_retried_with_the_same_requestid_and_creates_once(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks
) -> None:
    connected(shop, qbo)
    qbo.drop_after_create = 1  # the customer is made, the answer never arrives
    assert sync(shop)["status"] == "succeeded"
    assert len(qbo.records(REALM, "Customer")) == 1
    posts = [r for r in qbo.log if r.method == "POST" and r.url.path.endswith("/customer")]
    assert len(posts) == 2
    assert posts[0].url.params["requestid"] == posts[1].url.params["requestid"]


def test_a_worker_that_dies_after_a_create_resumes_without_duplicating(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock, hub: PayHub
) -> None:
    sent_invoice(shop, customerId=customer["customerId"])
    connected(shop, qbo)
    adapter = hub.accounting
    assert adapter is not None
    real = adapter.push_invoice
    crashes = [RuntimeError("the worker died")]

    def dies_once(*args: Any) -> Any:
        made = real(*args)
        if crashes:
            raise crashes.pop()
        return made

    adapter.push_invoice = dies_once  # type: ignore[method-assign]
    response = shop.post("/accounting-online/sync-now")
    run_id = response.json()["runId"]
    assert work(hub).retried["accounting"] == 1
    pending = links(shop, LinkKind.INVOICE)
    assert list(pending.values()) == [None]  # written before the call, not completed
    clock.advance(timedelta(minutes=10))
    work(hub)
    assert shop.ok(shop.get(f"/accounting-online/sync-runs/{run_id}"))["status"] == "succeeded"
    assert len(qbo.records(REALM, "Invoice")) == 1
    assert list(links(shop, LinkKind.INVOICE).values()) == [qbo.records(REALM, "Invoice")[0]["Id"]]


def test_automated_sales_tax_recomputing_is_logged_and_shown(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks
) -> None:
    qbo.companies[REALM].automatic_sales_tax = True
    qbo.companies[REALM].recomputed_tax = Decimal("2.19")
    sent_invoice(shop, customerId=customer["customerId"], taxRatePercent=8)
    connected(shop, qbo)
    run = sync(shop)
    assert run["counts"]["taxDifferences"] == 1
    assert any("2.19" in e and "2.00" in e for e in run["errors"])
    assert shop.ok(shop.get("/tax-rates/observed"))["automaticSalesTax"] is True
    assert shop.ok(shop.get("/accounting-online"))["automaticSalesTax"] is True


def test_disconnect_stops_syncing_at_once(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks
) -> None:
    connected(shop, qbo)
    queued = shop.post("/accounting-online/sync-now").json()
    status = shop.ok(shop.post("/accounting-online/disconnect"))
    assert status["status"] == "disconnected"
    assert status["statusReason"] == "disconnected by the merchant"
    work(shop.hub)
    run = shop.ok(shop.get(f"/accounting-online/sync-runs/{queued['runId']}"))
    assert run["status"] == "failed"
    assert qbo.records(REALM, "Customer") == []
    assert shop.read(lambda uow, m: uow.accounting.get(m, QBO)).tokens_sealed is None
    assert qbo.records(REALM, "Customer") == []
    shop.created("/customers", {"name": {"first": "Later"}})
    work(shop.hub)  # no push after disconnecting
    assert qbo.records(REALM, "Customer") == []


def test_intuit_notifications_are_verified_then_pull_invoice_status(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock
) -> None:
    connected(shop, qbo)
    number = sent_invoice(shop, customerId=customer["customerId"])
    work(shop.hub)
    remote = links(shop, LinkKind.INVOICE)[number]
    assert remote is not None
    clock.advance(timedelta(minutes=5))
    qbo.receive_payment(REALM, remote)
    body, signature = qbo.notify(REALM, "Invoice", remote)
    forged = shop.client.post(
        "/webhooks/intuit", content=body, headers={**JSON, "intuit-signature": "AAAA"}
    )
    assert forged.status_code == 404
    unsigned = shop.client.post("/webhooks/intuit", content=body, headers=JSON)
    assert unsigned.status_code == 404
    work(shop.hub)
    assert shop.stored(number).status is InvoiceStatus.SENT  # nothing queued by a forgery
    ok = shop.client.post(
        "/webhooks/intuit", content=body, headers={**JSON, "intuit-signature": signature}
    )
    assert ok.status_code == 200
    work(shop.hub)
    assert shop.stored(number).status is InvoiceStatus.PAID


def test_every_accounting_route_is_the_merchants_own(
    shop: Invoicing,
    customer: dict[str, Any],
    qbo: FakeQuickBooks,
    make_merchant: Any,
    merchant_key: Any,
    other_provider: Any,
) -> None:
    connected(shop, qbo)
    run_id = shop.post("/accounting-online/sync-now").json()["runId"]
    routes = [
        ("GET", "/accounting-online"),
        ("GET", f"/accounting-online/sync-runs/{run_id}"),
        ("POST", "/accounting-online/sync-now"),
        ("POST", "/accounting-online/sync-customers"),
        ("POST", "/accounting-online/disconnect"),  # last: the others need the connection
    ]
    make_merchant(shop.account, "other")
    sister = shop.with_key(merchant_key(shop.account, "other"))
    foreign = shop.with_key(other_provider.key)
    own_key = shop.with_key(merchant_key(shop.account, shop.ref))
    for method, path in routes:
        assert sister.call(method, path).status_code == 403, path
        assert foreign.call(method, path).status_code == 404, path
    assert shop.ok(shop.get("/accounting-online"))["status"] == "connected"  # untouched
    for method, path in routes:
        answer = own_key.call(method, path)
        assert answer.status_code in (200, 202), (path, answer.text)


def test_the_card_guard_spares_only_intuits_company_ids(shop: Invoicing) -> None:
    card = "4111111111111111"  # Luhn-valid: a company id may look like one
    realm_only = {"eventNotifications": [{"realmId": card, "dataChangeEvent": {"entities": []}}]}
    answer = shop.client.post("/webhooks/intuit", json=realm_only)
    assert answer.status_code == 404  # past the guard, then refused as unsigned
    elsewhere = {"eventNotifications": [{"realmId": "1", "note": card}]}
    assert shop.client.post("/webhooks/intuit", json=elsewhere).status_code == 400
    assert shop.client.get(f"/healthz?realmId={card}").status_code == 400  # other routes


def test_automated_sales_tax_feeds_the_tax_suggestion_and_observed_rates(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock
) -> None:
    company = qbo.companies[REALM]
    company.automatic_sales_tax = True
    company.recomputed_tax = Decimal("2.19")  # on 25.00 taxable: 8.76 %
    company.jurisdictions = (("California", 7.25), ("San Francisco County", 1.51))
    assert shop.ok(shop.get("/tax-rates/suggestion?postalCode=94105"))["found"] is False
    sent_invoice(
        shop,
        customerId=customer["customerId"],
        taxRatePercent=8,
        shipToAddress={"line1": "1 Market St", "city": "San Francisco", "postalCode": "94105"},
    )
    connected(shop, qbo)
    run = sync(shop)
    assert run["counts"]["taxRatesObserved"] == 1
    suggestion = shop.ok(shop.get("/tax-rates/suggestion?postalCode=94105-1234"))
    assert suggestion["found"] is True
    assert Decimal(str(suggestion["percent"])) == Decimal("8.76")
    assert [j["name"] for j in suggestion["jurisdictions"]] == [
        "California",
        "San Francisco County",
    ]
    assert suggestion["isStale"] is False
    assert suggestion["lastConfirmedAtUtc"].startswith(clock.now().date().isoformat())
    observed = shop.ok(shop.get("/tax-rates/observed"))
    assert observed["automaticSalesTax"] is True
    assert [o["postalCode"] for o in observed["observed"]] == ["94105"]
    clock.advance(timedelta(days=31))
    assert shop.ok(shop.get("/tax-rates/suggestion?postalCode=94105"))["isStale"] is True


def test_a_refresh_lost_to_another_worker_uses_the_grant_it_stored(
    shop: Invoicing, customer: dict[str, Any], qbo: FakeQuickBooks, clock: FixedClock, hub: PayHub
) -> None:
    connected(shop, qbo)
    clock.advance(timedelta(hours=2))
    adapter = hub.accounting
    assert adapter is not None
    real = adapter.refresh

    def beaten_by_another_worker(*args: Any) -> Any:
        # The other worker refreshes with the same (old) token first and stores its grant.
        theirs = real(*args)
        with hub.store.unit_of_work() as uow:
            merchant = shop.merchant(uow)
            connection = uow.accounting.get(merchant.id, QBO, for_update=True)
            assert connection is not None
            connection.tokens_sealed = hub.deps.secrets.seal(encode_tokens(theirs))
            uow.accounting.put(connection)
        return real(*args)  # ours now carries a spent refresh token: invalid_grant

    adapter.refresh = beaten_by_another_worker  # type: ignore[method-assign]
    run = sync(shop)
    assert run["status"] == "succeeded", run
    assert shop.ok(shop.get("/accounting-online"))["status"] == "connected"
    assert len(qbo.records(REALM, "Customer")) == 1
