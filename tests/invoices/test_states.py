"""The invoice state table, one test per row, and the embed endpoint.

The integration-driven rows ("marked paid in the connected accounting system", "deal moved
to the won stage in a connected CRM", "imported online-store order") drive the hooks those
integrations will call (``settle_externally``, ``import_store_order``) in a unit of work,
then check the stored invoice and what ``GET M/invoices/{n}`` shows.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from payhub.domain.addresses import Address
from payhub.domain.errors import Conflict, NotFound, ValidationError
from payhub.domain.invoices import (
    Invoice,
    InvoicePayment,
    InvoiceStatus,
    LineInput,
    PaymentSourceKind,
    StoreOrderStatus,
)
from payhub.domain.messaging import Channel, Message, TextKind
from payhub.domain.payments import MethodType
from payhub.services.invoices import StoreOrder, import_store_order, settle_externally
from tests.invoices.conftest import Invoicing, money


def pay(shop: Invoicing, number: str, amount: str | None = None, attempt: str = "a") -> None:
    shop.hub.pay_pages.pay(
        shop.token(number),
        amount=Decimal(amount) if amount else None,
        payment_token="sim_card_ok",
        method_type=MethodType.CARD,
        attempt_id=attempt,
    )


def _emails(shop: Invoicing) -> list[Message]:
    with shop.hub.store.unit_of_work(readonly=True) as uow:
        rows = uow.messages.list(None, limit=200)
    return [m for m in rows if m.channel is Channel.EMAIL and m.kind is TextKind.PAY_LINK]


def test_row_draft_send_becomes_sent_and_returns_the_link(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    created = shop.invoice(customerId=customer["customerId"])
    number = created["invoiceNumber"]
    sent = shop.ok(shop.post(f"/invoices/{number}/send"))
    assert sent["status"] == "Sent"
    assert sent["payUrl"] == created["payUrl"]
    assert sent["emailQueued"] is True
    [email] = _emails(shop)
    assert email.to == "ada@example.com"
    assert created["payUrl"] in email.body
    assert sent["invoice"]["sentAtUtc"] is not None
    assert shop.stored(number).status is InvoiceStatus.SENT


def test_row_draft_send_without_an_email_address_still_returns_the_link(
    shop: Invoicing,
) -> None:
    created = shop.invoice()  # no customer: nobody to email
    number = created["invoiceNumber"]
    sent = shop.ok(shop.post(f"/invoices/{number}/send"))
    assert (sent["status"], sent["emailQueued"]) == ("Sent", False)
    assert sent["payUrl"] == created["payUrl"]
    assert _emails(shop) == []
    assert shop.stored(number).status is InvoiceStatus.SENT


def test_sending_a_sent_invoice_resends_and_paid_or_void_is_409(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{number}/send"))
    again = shop.ok(shop.post(f"/invoices/{number}/send"))
    assert again["status"] == "Sent"
    pay(shop, number)
    refused = shop.post(f"/invoices/{number}/send")
    assert refused.status_code == 409
    assert refused.headers["content-type"].startswith("application/problem+json")
    void = shop.invoice()["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{void}/void"))
    assert shop.post(f"/invoices/{void}/send").status_code == 409
    assert shop.stored(void).status is InvoiceStatus.VOID


@pytest.mark.parametrize("start", ["Draft", "Sent"])
def test_row_non_paid_payment_leaving_nothing_due_becomes_paid(shop: Invoicing, start: str) -> None:
    number = shop.invoice(partialPaymentMode="CustomerChoice")["invoiceNumber"]
    if start == "Sent":
        shop.ok(shop.post(f"/invoices/{number}/send"))
    pay(shop, number, "5", attempt="part")
    partial = shop.ok(shop.get(f"/invoices/{number}"))
    assert partial["status"] == start  # a partial payment leaves it not Paid
    assert money(partial["amountDue"]) == 20
    pay(shop, number, attempt="rest")
    body = shop.ok(shop.get(f"/invoices/{number}"))
    assert body["status"] == "Paid"
    assert money(body["amountDue"]) == 0
    assert money(body["amountPaid"]) == 25
    assert [money(p["amount"]) for p in body["payments"]] == [5, 20]
    assert body["paidAtUtc"] is not None


@pytest.mark.parametrize("start", ["Draft", "Sent", "PartlyPaid", "Void"])
def test_row_any_state_but_paid_void_becomes_void(shop: Invoicing, start: str) -> None:
    number = shop.invoice(partialPaymentMode="CustomerChoice")["invoiceNumber"]
    if start in ("Sent", "PartlyPaid"):
        shop.ok(shop.post(f"/invoices/{number}/send"))
    if start == "PartlyPaid":
        pay(shop, number, "5")
    if start == "Void":
        shop.ok(shop.post(f"/invoices/{number}/void"))
    body = shop.ok(shop.post(f"/invoices/{number}/void"))
    assert body["status"] == "Void"
    stored = shop.stored(number)
    assert stored.status is InvoiceStatus.VOID
    assert stored.voided_at is not None
    assert len(stored.payments) == (1 if start == "PartlyPaid" else 0)


def test_paying_a_void_invoice_is_refused_and_takes_nothing(shop: Invoicing) -> None:
    """Void is a non-Paid state, but the merchant voided it: a payment would take money for
    a cancelled bill (and need a refund), so the page refuses it (409; docs/invoices.md)."""
    number = shop.invoice(partialPaymentMode="CustomerChoice")["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{number}/void"))
    with pytest.raises(Conflict):
        pay(shop, number)
    stored = shop.stored(number)
    assert (stored.status, list(stored.payments)) == (InvoiceStatus.VOID, [])
    assert shop.read(lambda uow, m: uow.transactions.list(m)) == []


def test_row_paid_void_is_refused(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    pay(shop, number)
    refused = shop.post(f"/invoices/{number}/void")
    assert refused.status_code == 409
    assert "Paid" in refused.json()["detail"]
    assert shop.stored(number).status is InvoiceStatus.PAID


# --- rows driven by the integrations (their hooks, called in a unit of work) -----------------

ACCOUNTING = [PaymentSourceKind.ACCOUNTING_ONLINE, PaymentSourceKind.ACCOUNTING_DESKTOP]


def settle(
    shop: Invoicing,
    number: str,
    source: PaymentSourceKind,
    reference: str,
    system: str | None = None,
) -> InvoicePayment:
    """What an integration's background check does when it finds the invoice paid."""
    with shop.hub.store.unit_of_work() as uow:
        return settle_externally(
            uow, shop.hub.deps, shop.merchant(uow), number, source, reference, system=system
        )


def import_order(shop: Invoicing, order: StoreOrder) -> Invoice | None:
    with shop.hub.store.unit_of_work() as uow:
        return import_store_order(uow, shop.hub.deps, shop.merchant(uow), order)


def _messages(shop: Invoicing) -> list[Message]:
    with shop.hub.store.unit_of_work(readonly=True) as uow:
        return list(uow.messages.list(None, limit=200))


def unpaid(shop: Invoicing, start: str, **fields: Any) -> str:
    """A Draft, Sent or partly paid (Sent) invoice of 25.00 (5.00 paid when partly)."""
    number = shop.invoice(partialPaymentMode="CustomerChoice", **fields)["invoiceNumber"]
    if start in ("Sent", "PartlyPaid"):
        shop.ok(shop.post(f"/invoices/{number}/send"))
    if start == "PartlyPaid":
        pay(shop, number, "5")
    return number


def assert_settled(
    shop: Invoicing,
    number: str,
    source: PaymentSourceKind,
    reference: str,
    system: str | None,
    before_paid: Decimal,
) -> None:
    """Stored Paid with the rest recorded from ``source``, and so over HTTP."""
    stored = shop.stored(number)
    assert stored.status is InvoiceStatus.PAID
    assert stored.paid_at is not None
    assert stored.amount_due.amount == 0
    assert stored.amount_paid == stored.total
    last = stored.payments[-1]
    assert (last.source, last.external_system, last.external_reference) == (
        source,
        system,
        reference,
    )
    assert (last.transaction_id, last.method_type, last.status) == (None, None, "External")
    assert last.amount.amount == 25 - before_paid
    body = shop.ok(shop.get(f"/invoices/{number}"))
    assert (body["status"], money(body["amountDue"]), money(body["amountPaid"])) == (
        "Paid",
        0,
        25,
    )
    wire = body["payments"][-1]
    assert wire["source"] == source.value
    assert (wire["transactionId"], wire["type"], wire["status"]) == (None, None, "External")
    assert (wire["externalSystem"], wire["externalReference"]) == (system, reference)
    assert money(wire["amount"]) == 25 - before_paid


@pytest.mark.parametrize("source", ACCOUNTING)
@pytest.mark.parametrize("start", ["Draft", "Sent", "PartlyPaid"])
def test_row_unpaid_marked_paid_in_accounting_becomes_paid_on_the_next_check(
    shop: Invoicing, customer: dict[str, Any], start: str, source: PaymentSourceKind
) -> None:
    number = unpaid(shop, start, customerId=customer["customerId"])
    before = _messages(shop)
    payment = settle(shop, number, source, "acct-inv-1042")
    paid_before = Decimal(5) if start == "PartlyPaid" else Decimal(0)
    assert_settled(shop, number, source, "acct-inv-1042", None, paid_before)
    assert _messages(shop) == before  # no receipt: the accounting system was paid, not payhub
    stored = shop.stored(number)
    again = settle(shop, number, source, "acct-inv-1042")  # the next background check
    assert again == payment
    assert shop.stored(number) == stored


@pytest.mark.parametrize("start", ["Draft", "Sent", "PartlyPaid"])
def test_row_unpaid_deal_won_in_a_crm_becomes_paid(shop: Invoicing, start: str) -> None:
    number = unpaid(shop, start)
    payment = settle(shop, number, PaymentSourceKind.CRM, "deal-77", system="crm-primary")
    paid_before = Decimal(5) if start == "PartlyPaid" else Decimal(0)
    assert_settled(shop, number, PaymentSourceKind.CRM, "deal-77", "crm-primary", paid_before)
    stored = shop.stored(number)
    assert settle(shop, number, PaymentSourceKind.CRM, "deal-77", "crm-primary") == payment
    assert shop.stored(number) == stored


@pytest.mark.parametrize("source", [*ACCOUNTING, PaymentSourceKind.CRM])
def test_settling_outside_a_paid_or_void_invoice_is_refused_and_changes_nothing(
    shop: Invoicing, source: PaymentSourceKind
) -> None:
    """Only Draft and Sent count as unpaid: Void was cancelled by the merchant, Paid has
    nothing due (docs/invoices.md)."""
    system = "crm-primary" if source is PaymentSourceKind.CRM else None
    paid = shop.invoice()["invoiceNumber"]
    pay(shop, paid)
    void = shop.invoice()["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{void}/void"))
    for number in (paid, void):
        before = shop.stored(number)
        with pytest.raises(Conflict):
            settle(shop, number, source, "outside-1", system)
        assert shop.stored(number) == before
    assert len(shop.stored(paid).payments) == 1
    assert shop.stored(void).payments == []


def test_settling_outside_checks_its_input_and_the_reference_settles_one_invoice(
    shop: Invoicing,
) -> None:
    first, second = (shop.invoice()["invoiceNumber"] for _ in range(2))
    crm = PaymentSourceKind.CRM
    with pytest.raises(ValidationError) as no_crm:
        settle(shop, first, crm, "deal-1")  # which CRM is required
    assert [f.field for f in no_crm.value.fields] == ["externalSystem"]
    with pytest.raises(ValidationError):
        settle(shop, first, PaymentSourceKind.ACCOUNTING_ONLINE, "  ")
    with pytest.raises(ValidationError):
        settle(shop, first, PaymentSourceKind.PAY_PAGE, "x")  # inside payhub: not outside
    with pytest.raises(ValidationError):
        settle(shop, first, PaymentSourceKind.ACCOUNTING_DESKTOP, "x", system="crm-primary")
    with pytest.raises(NotFound):
        settle(shop, "INV-999999", crm, "deal-1", "crm-primary")
    assert shop.stored(first).status is InvoiceStatus.DRAFT
    settle(shop, first, crm, "deal-1", "crm-primary")
    with pytest.raises(Conflict):  # one deal marks one invoice paid
        settle(shop, second, crm, "deal-1", "crm-primary")
    assert shop.stored(second).status is InvoiceStatus.DRAFT
    # the same deal id in another CRM is another record
    settle(shop, second, crm, "deal-1", "crm-other")
    assert shop.stored(second).status is InvoiceStatus.PAID


def test_a_settlement_while_a_payment_is_in_flight_is_refused(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    with shop.hub.store.unit_of_work() as uow:
        invoice = uow.invoices.get(shop.merchant(uow).id, number, for_update=True)
        assert invoice is not None
        invoice.reserved_attempt = "tab-1"
        invoice.reserved_amount = invoice.total
        invoice.reserved_at = shop.hub.deps.clock.now()
        uow.invoices.save(invoice)
    with pytest.raises(Conflict):
        settle(shop, number, PaymentSourceKind.ACCOUNTING_ONLINE, "acct-1")
    assert shop.stored(number).status is InvoiceStatus.DRAFT


def test_the_pay_page_shows_an_externally_settled_invoice_as_paid(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    settle(shop, number, PaymentSourceKind.ACCOUNTING_ONLINE, "acct-9")
    view = shop.hub.pay_pages.view(shop.token(number))
    assert view.invoice.status is InvoiceStatus.PAID
    assert view.options.can_pay is False
    assert view.sms_consent_offered is False  # nobody paid on this page
    page = shop.client.get(f"/pay/{shop.token(number)}")
    assert page.status_code == 200
    assert "Recorded in the merchant&#39;s accounting" in page.text
    receipt = shop.client.get(f"/pay/{shop.token(number)}/receipt")
    assert receipt.status_code == 200
    assert "Paid" in receipt.text


def _order(
    shop: Invoicing, status: StoreOrderStatus, customer_id: str | None, **fields: Any
) -> StoreOrder:
    values: dict[str, Any] = {
        "store": "storefront-a",
        "reference": "order-5001",
        "status": status,
        "gateway": "simulator",
        "currency": "USD",
        "line_items": [
            LineInput("Mug", Decimal(2), Decimal("9.50")),
            LineInput("Gift card", Decimal(1), Decimal(10), is_taxable=False),
        ],
        "tax_rate_percent": Decimal("8.25"),
        "total": Decimal("30.57"),  # 19.00 + 10.00 + 1.57 tax on the mugs
        "customer_id": customer_id,
        "bill_to_address": Address(line1="9 Order St", city="Austin", country="US"),
        "ship_to_address": Address(line1="1 Porch Rd", city="Austin", country="US"),
        **fields,
    }
    return StoreOrder(**values)


def test_row_new_imported_paid_store_order_is_created_already_paid(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    before = _messages(shop)
    invoice = import_order(shop, _order(shop, StoreOrderStatus.PAID, customer["customerId"]))
    assert invoice is not None
    stored = shop.stored(invoice.number)
    assert stored.status is InvoiceStatus.PAID
    assert stored.sent_at is None  # never sent: the store already took the money
    assert stored.customer_id == customer["customerId"]
    assert [(line.description, line.amount.amount) for line in stored.lines] == [
        ("Mug", Decimal("19.00")),
        ("Gift card", Decimal("10.00")),
    ]
    assert (stored.tax_percent, stored.tax.amount, stored.total.amount) == (
        Decimal("8.25"),
        Decimal("1.57"),
        Decimal("30.57"),
    )
    assert stored.bill_to is not None
    assert stored.bill_to.line1 == "9 Order St"
    assert stored.ship_to is not None
    assert stored.ship_to.line1 == "1 Porch Rd"
    [payment] = stored.payments
    assert (payment.source, payment.external_system, payment.external_reference) == (
        PaymentSourceKind.STOREFRONT,
        "storefront-a",
        "order-5001",
    )
    assert (payment.transaction_id, payment.amount.amount) == (None, Decimal("30.57"))
    body = shop.ok(shop.get(f"/invoices/{invoice.number}"))
    assert (body["status"], money(body["amountDue"]), money(body["amountPaid"])) == (
        "Paid",
        0,
        Decimal("30.57"),
    )
    assert body["payments"][0]["source"] == "Storefront"
    assert body["payments"][0]["externalReference"] == "order-5001"
    assert _messages(shop) == before  # no receipt: the store sends its own
    # the next sync pulls the same order again: the invoice it made, nothing new
    again = import_order(shop, _order(shop, StoreOrderStatus.PAID, customer["customerId"]))
    assert again is not None
    assert again.number == invoice.number
    assert len(shop.ok(shop.get("/invoices"))["data"]) == 1


@pytest.mark.parametrize(
    "status",
    [
        StoreOrderStatus.UNPAID,
        StoreOrderStatus.ON_HOLD,
        StoreOrderStatus.CANCELLED,
        StoreOrderStatus.FAILED,
    ],
)
def test_row_new_store_order_not_counted_as_paid_is_skipped(
    shop: Invoicing, status: StoreOrderStatus
) -> None:
    assert import_order(shop, _order(shop, status, None)) is None
    assert shop.ok(shop.get("/invoices"))["data"] == []


def test_a_store_order_whose_total_differs_is_refused_and_stores_nothing(
    shop: Invoicing,
) -> None:
    with pytest.raises(ValidationError) as refused:
        import_order(shop, _order(shop, StoreOrderStatus.PAID, None, total=Decimal("30.58")))
    assert [f.field for f in refused.value.fields] == ["total"]
    assert shop.ok(shop.get("/invoices"))["data"] == []
    no_bill_to = _order(shop, StoreOrderStatus.PAID, None, bill_to_address=None, store=None)
    invoice = import_order(shop, no_bill_to)
    assert invoice is not None
    assert invoice.bill_to is None
    assert invoice.payments[0].external_system is None


# --- embed -------------------------------------------------------------------------------


def test_embed_409s_and_changes_nothing(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    invoices = shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(shop.ref)
    invoices.invoices.change_embed_origins(add=["https://shop.example"])
    assert shop.post(f"/invoices/{number}/embed").status_code == 409  # Draft
    shop.ok(shop.post(f"/invoices/{number}/send"))
    before = shop.stored(number)
    first = shop.ok(shop.post(f"/invoices/{number}/embed"))
    second = shop.ok(shop.post(f"/invoices/{number}/embed"))
    assert first == second
    assert shop.stored(number) == before
    token = before.pay_token
    assert first["embedUrl"] == f"http://localhost:8000/embed/{token}"
    assert first["allowedOrigins"] == ["https://shop.example"]
    assert f'src="{first["embedUrl"]}"' in first["iframeHtml"]
    assert "http://localhost:8000" in first["resizeScriptHtml"]
    assert "<script>" in first["resizeScriptHtml"]
    invoices.invoices.change_embed_origins(clear=True)
    no_site = shop.post(f"/invoices/{number}/embed")
    assert no_site.status_code == 409
    assert "allowed website" in no_site.json()["detail"]
    invoices.invoices.change_embed_origins(add=["https://shop.example"])
    pay(shop, number)
    assert shop.post(f"/invoices/{number}/embed").status_code == 200  # Paid shows its state
    void = shop.invoice()["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{void}/void"))
    assert shop.post(f"/invoices/{void}/embed").status_code == 409


# --- list ----------------------------------------------------------------------------------


def test_list_filters_by_customer_and_pages(shop: Invoicing, customer: dict[str, Any]) -> None:
    cid = customer["customerId"]
    mine = [shop.invoice(customerId=cid)["invoiceNumber"] for _ in range(5)]
    others = [shop.invoice()["invoiceNumber"] for _ in range(2)]
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2, "customerId": cid}
        if cursor:
            params["startingAfter"] = cursor
        page = shop.ok(shop.get("/invoices", params=params))
        assert len(page["data"]) <= 2
        seen += [x["invoiceNumber"] for x in page["data"]]
        assert all(x["customerId"] == cid for x in page["data"])
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
        assert cursor == page["data"][-1]["invoiceNumber"]
    assert sorted(seen) == sorted(mine)
    assert len(seen) == len(set(seen))
    everything = shop.ok(shop.get("/invoices", params={"limit": 200}))["data"]
    assert {x["invoiceNumber"] for x in everything} == set(mine + others)
    assert shop.ok(shop.get("/invoices", params={"customerId": "cus_none"}))["data"] == []
    bad_cursor = shop.get("/invoices", params={"startingAfter": "INV-777777"})
    assert bad_cursor.status_code == 400
    assert shop.get("/invoices", params={"limit": 0}).status_code == 400
