"""The portal's security properties, checked on every portal route the app has.

Routes are read from the application itself, so pages added later (the merchant's pages,
the integrations) are walked by the same tests without listing them here:

- another merchant's session never sees this merchant's data, on any page, with any of this
  merchant's ids in the path, and its forms change nothing of this merchant's;
- every unsafe request without the session's CSRF token, with another session's token, or
  from another site is refused (403) and changes nothing;
- every answer carries CSP (frame-ancestors 'none'), no-referrer, and HSTS over https.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from litestar import Litestar

from payhub import PayHub
from tests.conftest import Account
from tests.portal.alpha_shop import add_shop_data, shop_snapshot
from tests.portal.support import Browser, csrf_of, make_user

_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def portal_routes(app: Litestar) -> Iterator[tuple[str, str, str]]:
    """(method, path template, kind) of every portal route: kind is signed-in, pending or
    public (``opt["portal"]``)."""
    for route in app.routes:
        if not route.path.startswith("/portal"):
            continue
        for handler in getattr(route, "route_handlers", []):
            for method in sorted(handler.http_methods):
                if method in ("HEAD", "OPTIONS"):
                    continue
                yield method, route.path, str(handler.opt.get("portal", "signed-in"))


class Alpha:
    """Merchant A, full of data that merchant B must never see."""

    markers: list[str]
    ids: list[str]


@pytest.fixture
def alpha(
    hub: PayHub, app: Litestar, sandbox_provider: Account, client: Any, other_provider: Account
) -> Alpha:
    scope = hub.provider(hub.as_provider(sandbox_provider.provider.id))
    scope.merchants.create("alpha-1", "Alphasecret Plumbing")
    owner = make_user(hub, "owner@alphasecret.example", merchant="alpha-1", name="Ophelia Alpha")
    staff = make_user(
        hub, "staff@alphasecret.example", "staff", "alpha-1", password=None, name="Sigmund Alpha"
    )
    key = hub.operators.issue_key(sandbox_provider.provider.id, "alpha-1", "alpha till")
    customer = client.post(
        "/api/merchant-accounts/alpha-1/customers",
        json={
            "name": {"first": "Quirinus", "last": "Alphacustomer"},
            "email": "quirinus@alphasecret.example",
            "billingAddress": {
                "line1": "7 Secret Lane",
                "city": "Austin",
                "state": "TX",
                "postalCode": "78701",
                "country": "US",
            },
        },
        headers=sandbox_provider.headers,
    )
    assert customer.status_code == 201, customer.text
    customer_id = customer.json()["customerId"]
    api = sandbox_provider.headers
    m = "/api/merchant-accounts/alpha-1"
    assert client.put(
        m + "/credentials/simulator",
        headers=api,
        json={"apiSecret": "sim-secret", "environment": "Sandbox"},
    ).is_success
    method = client.post(
        f"{m}/customers/{customer_id}/payment-methods/simulator",
        headers=api,
        json={"paymentMethodToken": "sim_card_ok", "type": "Card"},
    )
    assert method.status_code == 201, method.text
    invoice = client.post(m + "/invoices", headers=api, json={
        "customerId": customer_id, "gateway": "simulator",
        "lineItems": [{"description": "Zanzibar valve overhaul", "quantity": 1,
                       "unitPrice": 77.00}],
    })  # fmt: skip
    assert invoice.status_code == 201, invoice.text
    charge = client.post("/api/payments/charge", headers={**api, "X-Merchant-Reference": "alpha-1"},
                         json={"amount": {"value": 25.00, "currency": "USD"},
                               "gatewayName": "simulator", "paymentMethodToken": "sim_card_ok",
                               "type": "Card", "description": "Zanzibar call-out"})  # fmt: skip
    assert charge.status_code in (200, 201), charge.text
    profile_scope = scope.merchant("alpha-1")
    profile_scope.profile.update(
        business_name="Alphasecret Plumbing Co", contact_email="desk@alphasecret.example",
        phone="+15125550123", address=None,
    )  # fmt: skip
    profile_scope.invoices.change_embed_origins(add=["https://alphasecret.example"])
    profile_scope.invoices.set_numbering("ALPHA-{####}", 7)
    merchant_key = profile_scope.keys.issue("Alphakeylabel")
    shop = add_shop_data(hub, scope.merchant("alpha-1"), client, api, customer_id,
                         method.json()["paymentMethodId"])  # fmt: skip
    made = Alpha()
    made.markers = [
        *shop.markers,
        "Alphakeylabel",
        merchant_key.record.hint,
        "ALPHA-",
        "Alphasecret",
        "alphasecret.example",
        "Ophelia",
        "Sigmund",
        "Quirinus",
        "Alphacustomer",
        "7 Secret Lane",
        "alpha till",
        "Zanzibar",
        invoice.json()["payUrl"].rsplit("/", 1)[-1],
        method.json()["paymentMethodId"],
        charge.json()["transactionId"],
        owner.id,
        staff.id,
        customer_id,
        key.record.id,
        key.record.hint,
        sandbox_provider.provider.id,
    ]
    made.ids = [
        owner.id,
        staff.id,
        customer_id,
        key.record.id,
        key.record.key_id,
        merchant_key.record.id,
        "alpha-1",
        sandbox_provider.provider.id,
        invoice.json()["invoiceNumber"],
        method.json()["paymentMethodId"],
        charge.json()["transactionId"],
        "simulator",
        *shop.ids,
    ]
    return made


def _snapshot(hub: PayHub, provider_id: str) -> Any:
    """Everything of merchant A that a portal form could change."""
    scope = hub.provider(hub.as_provider(provider_id)).merchant("alpha-1")
    users = [
        (u.id, u.role, u.display_name, u.disabled_at, u.totp_enabled, u.password_hash)
        for u in hub.portal.list_users("alpha-1", provider_id)
    ]
    keys = [(k.key.id, k.key.revoked_at) for k in hub.operators.list_keys(provider_id)]
    customers = [(c.id, c.name, c.email, c.consent) for c in scope.customers.list().items]
    shop = shop_snapshot(hub, scope)
    consents = [
        [r.id for r in scope.customers.consent_history(c.id).items]
        for c in scope.customers.list().items
    ]
    invoices = [(i.number, i.status, i.amount_paid) for i in scope.invoices.list().items]
    transactions = [(t.id, t.status, t.refunded) for t in scope.payments.list()[0]]
    settings = (
        scope.profile.get(),
        scope.texting.settings(),
        scope.invoices.embed_origins(),
        scope.invoices.numbering(),
        [r.id for r in scope.schedule_requests.list().items],
    )
    return (
        users, keys, customers, consents, invoices, transactions, settings,
        hub.link_admin.blocklist(), hub.link_admin.domains(), shop,
    )  # fmt: skip


def _filled(template: str, values: list[str]) -> Iterator[tuple[str, list[str]]]:
    names = _PARAM.findall(template)
    for combo in itertools.islice(itertools.product(values, repeat=len(names)), 400):
        path = template
        for value in combo:
            path = _PARAM.sub(value, path, count=1)
        yield path, list(combo)


def _leaks(text: str, markers: list[str], used: list[str]) -> list[str]:
    """A's markers in B's page, less the values B itself put in the path (echoed in a
    'not found' message, they reveal nothing)."""
    return [m for m in markers if m in text and m not in used]


def test_another_merchants_session_never_sees_or_changes_anything(
    hub: PayHub,
    app: Litestar,
    alpha: Alpha,
    browse: Callable[..., Browser],
    other_provider: Account,
) -> None:
    hub.provider(hub.as_provider(other_provider.provider.id)).merchants.create("beta-1", "Beta")
    make_user(hub, "owner@beta.example", merchant="beta-1", name="Bea Beta")
    before = _snapshot(hub, alpha.markers[-1])
    b = browse()
    assert b.sign_in("owner@beta.example").status_code == 303
    csrf = csrf_of(b.get("/portal").text)
    walked = 0
    for method, template, kind in portal_routes(app):
        if kind != "signed-in" or template == "/portal/sign-out":
            continue
        for path, used in _filled(template, alpha.ids):
            if method == "GET":
                answer = b.get(path)
            else:
                answer = b.client.request(
                    method,
                    path,
                    data={"csrf_token": csrf, "user": used[0] if used else "", "domain": ""},
                    follow_redirects=False,
                )
            walked += 1
            assert answer.status_code < 500, (method, path, answer.text[:300])
            leaked = _leaks(answer.text, alpha.markers, used)
            assert not leaked, (method, path, leaked)
            if answer.status_code == 303 and "sign-in" in answer.headers.get("location", ""):
                pytest.fail(f"{method} {path} signed B out")
    assert walked >= 20
    assert _snapshot(hub, alpha.markers[-1]) == before


# Routes whose ids are not a merchant's data: accounts, the operator's, assets, and the
# integrations' pages (their names, such as accounting-online, are the same for every merchant).
_NOT_MERCHANT_DATA = ("/portal/operator", "/portal/team", "/portal/invite", "/portal/link",
                      "/portal/static", "/portal/sign-in", "/portal/account",
                      "/portal/integrations")  # fmt: skip


def test_another_merchants_ids_are_not_found_on_every_merchant_route(
    hub: PayHub,
    app: Litestar,
    alpha: Alpha,
    browse: Callable[..., Browser],
    other_provider: Account,
) -> None:
    """Every merchant page with an id in its path, read or posted by merchant B with any of
    A's ids: 404, as if the id did not exist (no 403 that would confirm it does)."""
    hub.provider(hub.as_provider(other_provider.provider.id)).merchants.create("beta-1", "Beta")
    make_user(hub, "owner@beta.example", merchant="beta-1", name="Bea Beta")
    b = browse()
    assert b.sign_in("owner@beta.example").status_code == 303
    csrf = csrf_of(b.get("/portal").text)
    walked = set()
    for method, template, kind in portal_routes(app):
        if kind != "signed-in" or not _PARAM.search(template):
            continue
        if template.startswith(_NOT_MERCHANT_DATA):
            continue
        for path, _ in _filled(template, alpha.ids):
            answer = (
                b.get(path)
                if method == "GET"
                else b.client.request(
                    method, path, data={"csrf_token": csrf}, follow_redirects=False
                )
            )
            assert answer.status_code == 404, (method, path, answer.status_code)
        walked.add(template)
    assert {
        "/portal/customers/{customer_id:str}",
        "/portal/customers/{customer_id:str}/consent",
        "/portal/invoices/{number:str}",
        "/portal/invoices/{number:str}/send",
        "/portal/invoices/{number:str}/void",
        "/portal/invoices/{number:str}/schedule-request",
        "/portal/payments/{transaction_id:str}",
        "/portal/payments/{transaction_id:str}/refund",
        "/portal/payments/{transaction_id:str}/void",
        "/portal/keys/{key_id:str}/revoke",
    } <= walked


def test_the_walk_can_fail(alpha: Alpha) -> None:
    """The leak check catches a page that shows A's data (and forgives an echoed id)."""
    page = "<td>Quirinus Alphacustomer</td>"
    assert _leaks(page, alpha.markers, []) == ["Quirinus", "Alphacustomer"]
    assert _leaks(f"no customer '{alpha.ids[2]}'", alpha.markers, [alpha.ids[2]]) == []


def test_forms_without_the_sessions_csrf_token_are_refused(
    hub: PayHub, app: Litestar, sandbox_provider: Account, browse: Callable[..., Browser]
) -> None:
    hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchants.create("s-1", "Shop")
    make_user(hub, "ann@example.com", merchant="s-1")
    make_user(hub, "op@example.com", "operator", name="Olive")
    victim = browse()
    victim.sign_in("op@example.com")
    attacker = browse()
    attacker.sign_in("ann@example.com")
    foreign = csrf_of(attacker.get("/portal").text)  # valid, but for another session
    own = csrf_of(victim.get("/portal").text)
    unsafe = [(m, t) for m, t, kind in portal_routes(app) if m in UNSAFE and kind != "pending"]
    assert len(unsafe) >= 10
    for method, template in unsafe:
        path = _PARAM.sub("x", template)
        for data, headers in (
            ({}, {}),
            ({"csrf_token": ""}, {}),
            ({"csrf_token": foreign}, {}),
            ({"csrf_token": own + "x"}, {}),
            ({"csrf_token": own[:-1] + "é"}, {}),
            ({"csrf_token": own}, {"Origin": "https://evil.example"}),
            ({"csrf_token": own}, {"Sec-Fetch-Site": "cross-site"}),
            ({"csrf_token": own}, {"Origin": "null"}),
            ({"csrf_token": own}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"}),
            ({"csrf_token": foreign}, {"Origin": "null", "Sec-Fetch-Site": "same-origin"}),
        ):
            answer = victim.client.request(
                method,
                path,
                data={"name": "Mallory Provider", "domain": "evil.example", **data},
                headers=headers,
                follow_redirects=False,
            )
            assert answer.status_code == 403, (method, path, data, headers, answer.status_code)
    assert victim.get("/portal").status_code == 200  # still signed in
    assert all(p.name != "Mallory Provider" for p in hub.operators.list_providers())
    assert hub.link_admin.blocklist() == []
    # The code page of a session waiting for its second factor: the same rule.
    from tests.portal.support import enable_totp, totp_now

    secret, _ = enable_totp(hub, hub.portal.get_user("ann@example.com").id)
    pending = browse()
    pending.sign_in("ann@example.com")
    refused = pending.post("/portal/sign-in/code", {"code": totp_now(secret, hub)})
    assert refused.status_code == 403
    # The same form with its own token goes through (the check can pass).
    ok = victim.post("/portal/operator/blocklist", {"csrf_token": own, "domain": "evil.example"})
    assert ok.status_code == 200
    assert [b.domain for b in hub.link_admin.blocklist()] == ["evil.example"]


def test_a_json_or_multipart_body_cannot_dodge_the_token(
    hub: PayHub, sandbox_provider: Account, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "op@example.com", "operator", name="Olive")
    b = browse()
    b.sign_in("op@example.com")
    as_json = b.client.post(
        "/portal/operator/blocklist", json={"domain": "evil.example"}, follow_redirects=False
    )
    multipart = b.client.post(
        "/portal/operator/blocklist",
        files={"domain": (None, "evil.example")},
        follow_redirects=False,
    )
    assert as_json.status_code == multipart.status_code == 403
    assert hub.link_admin.blocklist() == []


@pytest.mark.parametrize("base", ["http://testserver.local", "https://testserver.local"])
def test_every_portal_answer_carries_the_security_headers(
    hub: PayHub, app: Litestar, browse: Callable[..., Browser], base: str
) -> None:
    make_user(hub, "op@example.com", "operator", name="Olive")
    b = browse(base)
    cookie = "__Host-payhub_portal" if base.startswith("https") else "payhub_portal"
    b.sign_in("op@example.com")
    assert b.cookie(cookie)
    paths = [_PARAM.sub("x", t) for m, t, _ in portal_routes(app) if m == "GET"]
    paths += ["/portal/no-such-page/x"]
    for path in paths:
        answer = b.get(path)
        headers = answer.headers
        if path.startswith("/portal/no-such-page"):
            continue  # not a portal route: the API's 404
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert headers["referrer-policy"] == "no-referrer", path
        assert headers["x-frame-options"] == "DENY", path
        assert headers["x-content-type-options"] == "nosniff", path
        hsts = headers.get("strict-transport-security")
        if base.startswith("https"):
            assert hsts, path
            assert "max-age=" in hsts, path
        else:
            assert hsts is None, path
    # Redirects and error pages too.
    out = browse(base).get("/portal")
    assert out.status_code == 303
    assert "frame-ancestors 'none'" in out.headers["content-security-policy"]


def test_roles_guard_pages(
    hub: PayHub, sandbox_provider: Account, browse: Callable[..., Browser]
) -> None:
    hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchants.create("s-1", "Shop")
    make_user(hub, "staff@example.com", "staff", "s-1", name="Sam")
    make_user(hub, "op@example.com", "operator", name="Olive")
    staff = browse()
    staff.sign_in("staff@example.com")
    assert staff.get("/portal/team").status_code == 403
    assert staff.get("/portal/operator/providers").status_code == 403
    op = browse()
    op.sign_in("op@example.com")
    assert op.get("/portal/operator/providers").status_code == 200
    assert op.get("/portal/team").status_code == 403
