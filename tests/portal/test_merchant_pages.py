"""The merchant's pages over HTTP: Settings, Customers, Invoices, Payments, Keys.

Each action is checked by what it changed in the store (read back through the services the
API uses), not only by its status code; role rules (staff, admin, owner) on every action.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from litestar import Litestar

from payhub import PayHub
from payhub.domain.consent import ConsentSource
from payhub.domain.invoices import InvoiceStatus
from payhub.domain.messaging import Channel, TextKind
from payhub.domain.payments import TxStatus
from payhub.hub import MerchantScope
from tests.conftest import Account
from tests.portal.support import Browser, csrf_of, make_user

M = "/api/merchant-accounts/shop-1"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


class Shop:
    """A merchant with a customer, a saved card, an invoice, a captured and an authorized
    charge, and one user of each role."""

    scope: MerchantScope
    customer_id: str
    invoice: str
    captured: str
    authorized: str
    product_id: str
    owner_id: str
    staff_id: str


@pytest.fixture
def shop(hub: PayHub, sandbox_provider: Account, client: Any) -> Shop:
    api = sandbox_provider.headers
    assert client.post(
        "/api/merchant-accounts",
        json={"externalReference": "shop-1", "displayName": "Shop One"},
        headers=api,
    ).is_success
    owner = make_user(hub, "owner@shop.example", "owner", "shop-1", name="Olga Owner")
    make_user(hub, "admin@shop.example", "admin", "shop-1", name="Adam Admin")
    staff = make_user(hub, "staff@shop.example", "staff", "shop-1", name="Stan Staff")
    assert client.put(
        M + "/credentials/simulator",
        headers=api,
        json={"apiSecret": "sim-secret", "environment": "Sandbox"},
    ).is_success
    customer = client.post(M + "/customers", headers=api, json={
        "name": {"first": "Carla", "last": "Customer"}, "email": "carla@example.com",
        "phone": "+15125550100", "accountNumber": "ACC-7",
    })  # fmt: skip
    assert customer.status_code == 201, customer.text
    cid = customer.json()["customerId"]
    client.post(M + "/customers", headers=api, json={"name": {"company": "Dunder Paper"}})
    saved = client.post(
        f"{M}/customers/{cid}/payment-methods/simulator",
        headers=api,
        json={"paymentMethodToken": "sim_card_ok", "type": "Card"},
    )
    assert saved.status_code == 201, saved.text
    item = {"name": "Valve service", "unitPrice": 80.00, "kind": "Service", "isTaxable": False}
    product = client.post(M + "/products", headers=api, json=item)
    assert product.status_code == 201, product.text
    invoice = client.post(M + "/invoices", headers=api, json={
        "customerId": cid, "gateway": "simulator",
        "lineItems": [{"description": "Pump repair", "quantity": 1, "unitPrice": 120.00}],
    })  # fmt: skip
    assert invoice.status_code == 201, invoice.text
    charge = {"X-Merchant-Reference": "shop-1", **api}
    captured = client.post("/api/payments/charge", headers=charge, json={
        "amount": {"value": 50.00, "currency": "USD"}, "gatewayName": "simulator",
        "paymentMethodToken": "sim_card_ok", "type": "Card"})  # fmt: skip
    authorized = client.post("/api/payments/charge", headers=charge, json={
        "amount": {"value": 30.00, "currency": "USD"}, "gatewayName": "simulator",
        "paymentMethodToken": "sim_card_ok", "type": "Card", "capture": False})  # fmt: skip
    assert captured.status_code == authorized.status_code == 201, authorized.text
    made = Shop()
    made.scope = hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchant("shop-1")
    made.customer_id = cid
    made.invoice = invoice.json()["invoiceNumber"]
    made.captured = captured.json()["transactionId"]
    made.authorized = authorized.json()["transactionId"]
    made.product_id = product.json()["productId"]
    made.owner_id = owner.id
    made.staff_id = staff.id
    return made


def signed_in(browse: Callable[..., Browser], email: str) -> Browser:
    b = browse()
    assert b.sign_in(email).status_code == 303
    return b


def hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found, name
    return found.group(1)


# --- navigation ---------------------------------------------------------------------------------


def test_every_section_is_in_the_navigation(shop: Shop, browse: Callable[..., Browser]) -> None:
    page = signed_in(browse, "owner@shop.example").get("/portal").text
    nav = page[page.index('aria-label="Sections"') :]
    for href in ("/portal/customers", "/portal/invoices", "/portal/payments",
                 "/portal/schedules", "/portal/catalog", "/portal/register",
                 "/portal/integrations", "/portal/keys", "/portal/settings"):  # fmt: skip
        assert f'href="{href}"' in nav, href
    staff = signed_in(browse, "staff@shop.example").get("/portal").text
    assert 'href="/portal/keys"' not in staff  # staff have no keys page (403)
    assert 'href="/portal/settings"' in staff


# --- settings -----------------------------------------------------------------------------------


def test_business_details_are_saved_and_shown_to_customers(
    shop: Shop, browse: Callable[..., Browser], client: Any
) -> None:
    b = signed_in(browse, "admin@shop.example")
    answer = b.submit("/portal/settings", "/portal/settings/profile", {
        "businessName": "Shop One Plumbing", "contactEmail": "help@shopone.example",
        "phone": "(512) 555-0199", "line1": "1 Main St", "city": "Austin", "state": "TX",
        "postalCode": "78701", "country": "US"})  # fmt: skip
    assert answer.status_code == 303
    profile = shop.scope.profile.get()
    assert profile.business_name == "Shop One Plumbing"
    assert profile.phone == "+15125550199"  # phonenumbers: E.164
    assert profile.address is not None
    assert profile.address.city == "Austin"
    assert "Business details saved" in b.get(answer.headers["location"]).text
    # The pay page and the receipt name the business and show how to reach it.
    pay_url = shop.scope.invoices.pay_url(shop.scope.invoices.get(shop.invoice))
    page = client.get(urlsplit(pay_url).path).text
    assert "Shop One Plumbing" in page
    assert "1 Main St, Austin, TX 78701, US" in page
    assert "help@shopone.example" in page
    # The email the send queues names the business and ends with how to reach it.
    shop.scope.invoices.send(shop.invoice)
    [email] = [m for m in shop.scope.texting.messages().items if m.channel is Channel.EMAIL]
    assert email.subject == f"Invoice {shop.invoice} from Shop One Plumbing"
    assert email.body.endswith(
        "Shop One Plumbing\n1 Main St, Austin, TX 78701, US\n+15125550199\nhelp@shopone.example\n"
    )


def test_bad_business_details_are_refused_field_by_field(
    shop: Shop, browse: Callable[..., Browser]
) -> None:
    b = signed_in(browse, "owner@shop.example")
    answer = b.submit("/portal/settings", "/portal/settings/profile", {
        "contactEmail": "not an email", "phone": "12", "postalCode": "9" * 30})  # fmt: skip
    assert answer.status_code == 400
    assert 'id="contactEmail-error"' in answer.text
    assert 'id="phone-error"' in answer.text
    assert 'id="postalCode-error"' in answer.text
    assert shop.scope.profile.get().contact_email is None


def test_logo_png_or_jpeg_only_and_limited_in_size(
    shop: Shop, browse: Callable[..., Browser], client: Any
) -> None:
    b = signed_in(browse, "owner@shop.example")
    token = csrf_of(b.get("/portal/settings").text)

    def upload(data: bytes, name: str) -> Any:
        files = {"logo": (name, data, "image/png")}
        return b.client.post(
            "/portal/settings/logo",
            data={"csrf_token": token},
            files=files,
            follow_redirects=False,
        )

    assert upload(SVG, "logo.png").status_code == 400  # the bytes decide, not the name
    assert upload(b"\x89PNG\r\n\x1a\n" + b"\x00" * (256 * 1024), "big.png").status_code == 400
    assert shop.scope.profile.get().logo is None
    assert upload(JPEG, "logo.jpg").status_code == 303
    logo = shop.scope.profile.get().logo
    assert logo is not None
    assert logo.media_type == "image/jpeg"
    assert upload(PNG, "logo.png").status_code == 303
    assert shop.scope.profile.get().logo.media_type == "image/png"  # type: ignore[union-attr]
    assert "data:image/png;base64," in b.get("/portal/settings").text
    pay_url = shop.scope.invoices.pay_url(shop.scope.invoices.get(shop.invoice))
    pay_page = client.get(urlsplit(pay_url).path).text
    assert '<img class="merchant-logo" src="data:image/png;base64,' in pay_page
    assert b.submit("/portal/settings", "/portal/settings/logo/remove").status_code == 303
    assert shop.scope.profile.get().logo is None


def test_time_zone_and_texting_follow_the_cli_rules(
    shop: Shop, browse: Callable[..., Browser]
) -> None:
    b = signed_in(browse, "owner@shop.example")
    # Switching a kind on needs the time zone (quiet hours are kept in it).
    refused = b.submit("/portal/settings", "/portal/settings/texting", {"kind-Receipt": "on"})
    assert refused.status_code == 400
    assert shop.scope.texting.settings().enabled == frozenset()
    bad = b.submit("/portal/settings", "/portal/settings/time-zone", {"timeZone": "Mars/Base"})
    assert bad.status_code == 400
    ok = b.submit("/portal/settings", "/portal/settings/time-zone", {"timeZone": "America/Chicago"})
    assert ok.status_code == 303
    on = b.submit("/portal/settings", "/portal/settings/texting",
                  {"kind-Receipt": "on", "kind-PayLink": "on"})  # fmt: skip
    assert on.status_code == 303
    settings = shop.scope.texting.settings()
    assert settings.time_zone == "America/Chicago"
    assert settings.enabled == {TextKind.RECEIPT, TextKind.PAY_LINK}
    page = b.get("/portal/settings").text
    assert "21:00" in page
    assert "08:00" in page
    assert "Reply STOP" in page  # what each kind sends, in its own words
    off = b.submit("/portal/settings", "/portal/settings/texting", {"kind-PayLink": "on"})
    assert off.status_code == 303
    assert shop.scope.texting.settings().enabled == {TextKind.PAY_LINK}


def test_embed_websites_same_rules_as_the_cli(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "owner@shop.example")
    for bad in ("http://shop.example", "https://shop.example/path", "https://*.example"):
        answer = b.submit("/portal/settings", "/portal/settings/embed", {"origin": bad})
        assert answer.status_code == 400, bad
    for n in range(10):
        good = f"https://s{n}.example"
        assert (
            b.submit("/portal/settings", "/portal/settings/embed", {"origin": good}).status_code
            == 303
        )
    eleventh = b.submit(
        "/portal/settings", "/portal/settings/embed", {"origin": "https://x.example"}
    )
    assert eleventh.status_code == 400
    assert len(shop.scope.invoices.embed_origins()) == 10
    removed = b.submit(
        "/portal/settings", "/portal/settings/embed", {"remove": "https://s0.example"}
    )
    assert removed.status_code == 303
    assert "https://s0.example" not in shop.scope.invoices.embed_origins()


def test_invoice_numbering_preview_then_save(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "owner@shop.example")
    form = {"format": "SO-{YYYY}-{####}", "start": "42", "action": "preview"}
    preview = b.submit("/portal/settings", "/portal/settings/numbering", form)
    assert preview.status_code == 200
    assert "SO-2025-0042" in preview.text  # the clock's year (tests' START)
    assert shop.scope.invoices.numbering().number_format is None  # a preview saves nothing
    live = b.get(
        "/portal/settings/numbering/preview?format=SO-%7BYYYY%7D-%7B%23%23%23%23%7D&start=7"
    )
    assert live.json() == {"example": "SO-2025-0007"}
    wrong = b.get("/portal/settings/numbering/preview?format=SO-%7BXX%7D")
    assert "unknown token" in wrong.json()["error"]
    saved = b.submit("/portal/settings", "/portal/settings/numbering", {**form, "action": "save"})
    assert saved.status_code == 303
    assert shop.scope.invoices.numbering().example == "SO-2025-0042"
    refused = b.submit("/portal/settings", "/portal/settings/numbering",
                       {"format": "{#}", "action": "save"})  # fmt: skip
    assert refused.status_code == 400
    assert shop.scope.invoices.numbering().number_format == "SO-{YYYY}-{####}"


def test_staff_read_settings_but_change_nothing(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "staff@shop.example")
    page = b.get("/portal/settings")
    assert page.status_code == 200
    token = csrf_of(page.text)
    for action, data in (
        ("/portal/settings/profile", {"businessName": "Staff Was Here"}),
        ("/portal/settings/time-zone", {"timeZone": "America/Chicago"}),
        ("/portal/settings/texting", {"kind-Receipt": "on"}),
        ("/portal/settings/embed", {"origin": "https://staff.example"}),
        ("/portal/settings/numbering", {"format": "S-{###}"}),
        ("/portal/settings/logo/remove", {}),
    ):
        assert b.post(action, {"csrf_token": token, **data}).status_code == 403, action
    assert shop.scope.profile.get().business_name is None
    assert shop.scope.invoices.embed_origins() == ()


# --- customers ----------------------------------------------------------------------------------


def test_customers_search_and_list(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "staff@shop.example")
    everyone = b.get("/portal/customers").text
    assert "Carla Customer" in everyone
    assert "Dunder Paper" in everyone
    for query in ("carla", "CUSTOMER", "acc-7", "5550100", "carla@"):
        found = b.get(f"/portal/customers?q={query}").text
        assert "Carla Customer" in found, query
        assert "Dunder Paper" not in found, query
    assert "No customer matches" in b.get("/portal/customers?q=%25").text  # % is literal


def test_customer_page_shows_invoices_methods_and_consent(
    shop: Shop, browse: Callable[..., Browser]
) -> None:
    page = signed_in(browse, "staff@shop.example").get(f"/portal/customers/{shop.customer_id}")
    assert page.status_code == 200
    assert shop.invoice in page.text
    assert "$120.00" in page.text  # the Due column
    assert "ending" in page.text  # the saved card
    assert "No consent recorded" in page.text


def test_staff_record_consent_in_their_own_name(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "staff@shop.example")
    path = f"/portal/customers/{shop.customer_id}"
    # Giving consent needs the box saying the customer clearly asked.
    unconfirmed = b.submit(path, path + "/consent", {"consent": "give"})
    assert unconfirmed.status_code == 400
    assert shop.scope.customers.consent(shop.customer_id).consent is False
    # A typed name is not how the record names anyone: only the session's user counts.
    typed = {"operator": "Someone Else", "recordedBy": "x"}
    given = b.submit(path, path + "/consent", {"consent": "give", "confirm": "yes", **typed})
    assert given.status_code == 303
    state = shop.scope.customers.consent(shop.customer_id)
    assert state.consent
    assert state.phone == "+15125550100"
    assert state.source is ConsentSource.PORTAL
    record = shop.scope.customers.consent_history(shop.customer_id).items[0]
    assert record.recorded_by == f"portal:{shop.staff_id}"
    shown = b.get(path).text
    assert "Stan Staff (staff@shop.example), in the portal" in shown
    assert "Someone Else" not in shown
    london = {"consent": "give", "confirm": "yes", "phone": "+442071838750"}
    bad_number = b.submit(path, path + "/consent", london)
    assert bad_number.status_code == 400  # outside the US: refused (SMS rule 5)
    withdrawn = b.submit(path, path + "/consent", {"consent": "withdraw"})
    assert withdrawn.status_code == 303
    assert shop.scope.customers.consent(shop.customer_id).consent is False


def test_consent_is_recorded_through_the_service_only_for_portal_callers(shop: Shop) -> None:
    from payhub.domain.errors import Forbidden

    with pytest.raises(Forbidden):
        shop.scope.customers.record_consent_in_portal(shop.customer_id, True, None)


# --- invoices -----------------------------------------------------------------------------------


def test_invoices_filter_by_status_customer_and_dates(
    shop: Shop, browse: Callable[..., Browser], clock: Any
) -> None:
    b = signed_in(browse, "staff@shop.example")
    assert shop.invoice in b.get("/portal/invoices").text
    assert shop.invoice in b.get("/portal/invoices?status=Draft").text
    assert shop.invoice not in b.get("/portal/invoices?status=Sent").text
    assert shop.invoice in b.get(f"/portal/invoices?customer={shop.customer_id}").text
    assert shop.invoice not in b.get("/portal/invoices?customer=cus_nobody").text
    assert shop.invoice in b.get("/portal/invoices?from=2025-03-14&to=2025-03-14").text
    assert shop.invoice not in b.get("/portal/invoices?from=2025-03-15").text
    assert shop.invoice not in b.get("/portal/invoices?to=2025-03-13").text
    assert b.get("/portal/invoices?from=2025-03-15&to=2025-03-14").status_code == 400
    assert b.get("/portal/invoices?from=yesterday").status_code == 400


def test_invoice_send_resend_void_link_and_embed(
    shop: Shop, browse: Callable[..., Browser]
) -> None:
    staff = signed_in(browse, "staff@shop.example")
    path = f"/portal/invoices/{shop.invoice}"
    page = staff.get(path).text
    pay_url = shop.scope.invoices.pay_url(shop.scope.invoices.get(shop.invoice))
    assert pay_url in page  # the link to copy
    assert "Not available" in page  # embed: a draft, and no website allowed
    assert staff.submit(path, path + "/send").status_code == 303
    assert shop.scope.invoices.get(shop.invoice).status is InvoiceStatus.SENT
    assert "Resend invoice" in staff.get(path).text
    assert staff.submit(path, path + "/send").status_code == 303  # resend: still Sent
    shop.scope.invoices.change_embed_origins(add=["https://shop.example"])
    embedded = staff.get(path).text
    assert "&lt;iframe" in embedded
    assert "https://shop.example" in embedded
    # Staff do not void; an admin does.
    assert staff.submit(path, path + "/void").status_code == 403
    admin = signed_in(browse, "admin@shop.example")
    assert admin.submit(path, path + "/void").status_code == 303
    assert shop.scope.invoices.get(shop.invoice).status is InvoiceStatus.VOID


def test_schedule_request_from_the_invoice_page(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "staff@shop.example")
    path = f"/portal/invoices/{shop.invoice}"
    missing = b.submit(path, path + "/schedule-request", {})
    assert missing.status_code == 400
    made = b.submit(path, path + "/schedule-request",
                    {"startDate": "2025-04-01", "cadence": "Monthly", "amount": "40.00",
                     "maxCharges": "3"})  # fmt: skip
    assert made.status_code == 200, made.text[:2000]
    assert "/approve/" in made.text
    requests = shop.scope.schedule_requests.list().items
    assert len(requests) == 1
    assert requests[0].max_charges == 3


def test_new_invoice_from_the_catalog(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "staff@shop.example")
    form = b.get(f"/portal/invoices/new?customer={shop.customer_id}").text
    assert "Valve service" in form
    none = b.submit("/portal/invoices/new", "/portal/invoices", {"gateway": "simulator"})
    assert none.status_code == 400
    zero = {"gateway": "simulator", "product1": shop.product_id, "quantity1": "0"}
    assert b.submit("/portal/invoices/new", "/portal/invoices", zero).status_code == 400
    made = b.submit("/portal/invoices/new", "/portal/invoices", {
        "customer": shop.customer_id, "gateway": "simulator",
        "product1": shop.product_id, "quantity1": "2"})  # fmt: skip
    assert made.status_code == 303
    number = made.headers["location"].split("/")[-1].split("?")[0]
    invoice = shop.scope.invoices.get(number)
    assert invoice.lines[0].product_id == shop.product_id
    assert invoice.lines[0].description == "Valve service"
    assert str(invoice.total.amount) == "160.00"
    assert invoice.customer_id == shop.customer_id


# --- payments -----------------------------------------------------------------------------------


def test_payments_list_with_filters(shop: Shop, browse: Callable[..., Browser]) -> None:
    b = signed_in(browse, "staff@shop.example")
    everything = b.get("/portal/payments").text
    assert shop.captured in everything
    assert shop.authorized in everything
    captured = b.get("/portal/payments?status=Captured").text
    assert shop.captured in captured
    assert shop.authorized not in captured
    assert shop.captured not in b.get("/portal/payments?from=2025-03-15").text


def test_partial_refund_once_per_form_even_when_sent_twice(
    shop: Shop, browse: Callable[..., Browser]
) -> None:
    b = signed_in(browse, "owner@shop.example")
    path = f"/portal/payments/{shop.captured}"
    page = b.get(path).text
    form = {"csrf_token": csrf_of(page), "idempotencyKey": hidden(page, "idempotencyKey"),
            "amount": "20.00"}  # fmt: skip
    first = b.post(path + "/refund", form)
    second = b.post(path + "/refund", form)  # the double click
    assert first.status_code == second.status_code == 303
    assert second.headers["location"].endswith("done=replayed")
    tx = shop.scope.payments.find(shop.captured).transaction
    assert str(tx.refunded.amount) == "20.00"
    assert tx.status is TxStatus.PARTIALLY_REFUNDED
    # A new rendering is a new form: the rest is refunded; past it, the API's rule refuses.
    page = b.get(path).text
    too_much = {"csrf_token": csrf_of(page), "idempotencyKey": hidden(page, "idempotencyKey"),
                "amount": "40.00"}  # fmt: skip
    assert b.post(path + "/refund", too_much).status_code in (400, 409)
    page = b.get(path).text
    rest = {"csrf_token": csrf_of(page), "idempotencyKey": hidden(page, "idempotencyKey")}
    assert b.post(path + "/refund", rest).status_code == 303
    assert shop.scope.payments.find(shop.captured).transaction.status is TxStatus.REFUNDED


def test_void_an_authorization_and_roles(shop: Shop, browse: Callable[..., Browser]) -> None:
    staff = signed_in(browse, "staff@shop.example")
    path = f"/portal/payments/{shop.authorized}"
    page = staff.get(path).text
    assert "Only an owner or an admin" in page
    token = csrf_of(page)
    refused = staff.post(path + "/void", {"csrf_token": token, "idempotencyKey": "k-1"})
    assert refused.status_code == 403
    assert shop.scope.payments.find(shop.authorized).transaction.status is TxStatus.AUTHORIZED
    admin = signed_in(browse, "admin@shop.example")
    page = admin.get(path).text
    form = {"csrf_token": csrf_of(page), "idempotencyKey": hidden(page, "idempotencyKey")}
    assert admin.post(path + "/void", form).status_code == 303
    assert admin.post(path + "/void", form).headers["location"].endswith("done=replayed")
    assert shop.scope.payments.find(shop.authorized).transaction.status is TxStatus.VOIDED


# --- keys ---------------------------------------------------------------------------------------


def test_owner_issues_lists_and_revokes_keys(
    shop: Shop, browse: Callable[..., Browser], client: Any
) -> None:
    b = signed_in(browse, "owner@shop.example")
    issued = b.submit("/portal/keys", "/portal/keys", {"label": "online shop"})
    assert issued.status_code == 200
    secret = re.search(r'id="issued-key">([^<]+)<', issued.text)
    assert secret
    key = secret.group(1)
    assert client.get(M + "/customers", headers={"X-Api-Key": key}).status_code == 200
    listed = b.get("/portal/keys").text
    assert key not in listed  # never the secret again
    assert "online shop" in listed
    [record] = shop.scope.keys.list()
    assert record.merchant_id is not None
    assert b.submit("/portal/keys", f"/portal/keys/{record.id}/revoke").status_code == 303
    assert shop.scope.keys.list()[0].revoked_at is not None
    assert client.get(M + "/customers", headers={"X-Api-Key": key}).status_code == 401


def test_only_an_owner_issues_or_revokes(shop: Shop, browse: Callable[..., Browser]) -> None:
    record = shop.scope.keys.issue("till").record
    admin = signed_in(browse, "admin@shop.example")
    page = admin.get("/portal/keys")
    assert page.status_code == 200
    assert "Only an owner" in page.text
    token = csrf_of(page.text)
    assert admin.post("/portal/keys", {"csrf_token": token, "label": "x"}).status_code == 403
    assert admin.post(f"/portal/keys/{record.id}/revoke", {"csrf_token": token}).status_code == 403
    staff = signed_in(browse, "staff@shop.example")
    assert staff.get("/portal/keys").status_code == 403
    assert [k.revoked_at for k in shop.scope.keys.list()] == [None]


def test_an_operator_has_no_merchant_pages(
    shop: Shop, hub: PayHub, browse: Callable[..., Browser], app: Litestar
) -> None:
    make_user(hub, "op@example.com", "operator", name="Olive")
    op = signed_in(browse, "op@example.com")
    for path in ("/portal/settings", "/portal/customers", "/portal/invoices",
                 "/portal/payments", "/portal/keys"):  # fmt: skip
        assert op.get(path).status_code == 403, path
