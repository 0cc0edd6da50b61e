"""A tour of the whole API, as a provider's software would call it: every operation once.

It serves two purposes:

- ``python -m tests.http.api_tour`` runs it in-process and writes what each operation was sent
  and answered to ``payhub_server/openapi_examples.json``: the request and response examples
  of the OpenAPI document are what a real server gave, not invented;
- the schemathesis suite runs it against a served process first, so the path parameters it
  pins (``Tour.ids``) name real, live objects and the fuzzed operations are really exercised.

Objects that a call ends (a voided invoice, a cancelled schedule, a revoked link, a deleted
payment method) are separate ones, so every id in ``ids`` stays usable.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

EXAMPLES = Path(__file__).resolve().parents[2] / "payhub_server" / "openapi_examples.json"
_PARAM = re.compile(r"\{(\w+)\}")


class Client(Protocol):
    """httpx.Client and Litestar's TestClient both fit."""

    def request(self, method: str, url: str, **kwargs: Any) -> Any: ...


@dataclass
class Tour:
    client: Client
    key: str
    document: dict[str, Any]
    ids: dict[str, str] = field(default_factory=dict)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    # operationId -> path parameters naming an object of its own, for operations that end
    # or change what they act on (see ``spares``)
    own: dict[str, dict[str, str]] = field(default_factory=dict)

    def call(
        self,
        method: str,
        template: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        ok: tuple[int, ...] = (200, 201, 204),
        **path: str,
    ) -> Any:
        """Call ``method template`` (the document's path) with ``self.ids`` filling the path."""
        values = {**self.ids, **path}
        url = _PARAM.sub(lambda m: values[m.group(1)], template)
        op = self.document["paths"][template][method.lower()]
        sent = {"X-Api-Key": self.key, **(headers or {})}
        kwargs: dict[str, Any] = {"headers": sent, "params": params}
        if body is not None:
            kwargs["json"] = body
        response = self.client.request(method, url, **kwargs)
        assert response.status_code in ok, (method, url, response.status_code, response.text)
        operation_id = op["operationId"]
        self.called.add(operation_id)
        answer = response.json() if response.content else None
        if operation_id not in self.records and response.status_code < 400:
            record: dict[str, Any] = {"status": response.status_code}
            if body is not None:
                record["request"] = body
            if answer is not None:
                record["response"] = answer
            self.records[operation_id] = record
        return answer


ADDRESS = {
    "line1": "1 Main Street",
    "city": "Austin",
    "state": "TX",
    "postalCode": "78701",
    "country": "US",
}
M = "/api/merchant-accounts"
R = M + "/{ref}"


def run(  # noqa: PLR0915  # one linear story
    tour: Tour,
    allow_embedding: Any = None,
    portal_user: Any = None,
    connect_accounting: Any = None,
) -> Tour:
    """Every operation once. ``allow_embedding(ref)`` gives the merchant an allowed website
    (the portal's job, done in-process) so the embed call succeeds; without it that call is
    made and may be refused. ``portal_user(ref)`` creates a portal user of the merchant (the
    operator's CLI, in-process) and returns its email; without it the portal-session call is
    made for nobody and answers 404. ``connect_accounting(ref)`` connects the online
    accounting system (the portal's job, in-process, against a fake); without it the sync
    calls answer 409."""
    t = tour
    call = t.call
    # --- the merchant and its gateway --------------------------------------------------------
    call("GET", "/healthz")
    made = call("POST", M, {"externalReference": "acme-plumbing", "displayName": "Acme Plumbing"})
    t.ids["ref"] = made["externalReference"]
    call("GET", M, params={"limit": 10})
    call("GET", R)
    call("GET", "/api/gateways")
    t.ids["gateway"] = "simulator"
    call(
        "PUT",
        R + "/credentials/{gateway}",
        {"apiSecret": "sim-secret", "environment": "Sandbox", "additionalFields": {}},
    )
    call("GET", R + "/credentials")
    if allow_embedding is not None:
        allow_embedding(t.ids["ref"])
    if portal_user is not None:
        call("POST", R + "/portal-sessions", {"user": portal_user(t.ids["ref"])}, ok=(201,))
    else:
        call("POST", R + "/portal-sessions", {"user": "owner@acme-plumbing.example"}, ok=(404,))

    # --- catalog -----------------------------------------------------------------------------
    rate = call("POST", R + "/tax-rates", {"name": "Austin sales tax", "percent": 8.25})
    t.ids["tax_rate_id"] = rate["taxRateId"]
    call("GET", R + "/tax-rates")
    call("GET", R + "/tax-rates/{tax_rate_id}")
    call("PUT", R + "/tax-rates/{tax_rate_id}", {"name": "Austin sales tax", "percent": 8.25})
    call("POST", R + "/tax-rates/{tax_rate_id}/default")
    call("GET", R + "/tax-rates/suggestion", params={"postalCode": "78701"})
    call("GET", R + "/tax-rates/observed")
    spare = call("POST", R + "/tax-rates", {"name": "Out of state", "percent": 0})
    call("POST", R + "/tax-rates/{tax_rate_id}/deactivate", tax_rate_id=spare["taxRateId"])
    call("POST", R + "/tax-rates/{tax_rate_id}/activate", tax_rate_id=spare["taxRateId"])

    category = call(
        "POST", R + "/product-categories", {"name": "Repairs", "color": "#1E88E5", "sortOrder": 1}
    )
    t.ids["category_id"] = category["categoryId"]
    call("GET", R + "/product-categories")
    call("GET", R + "/product-categories/{category_id}")
    call(
        "PUT",
        R + "/product-categories/{category_id}",
        {"name": "Repairs", "color": "#1565C0", "sortOrder": 1},
    )
    call("POST", R + "/product-categories/{category_id}/deactivate")
    call("POST", R + "/product-categories/{category_id}/activate")

    product_body = {
        "name": "Pipe repair (hour)",
        "unitPrice": 40.00,
        "currency": "USD",
        "sku": "PIPE-1H",
        "kind": "Service",
        "isTaxable": True,
    }
    product = call("POST", R + "/products", product_body)
    t.ids["product_id"] = product["productId"]
    call("GET", R + "/products")
    call("GET", R + "/products/{product_id}")
    call("PUT", R + "/products/{product_id}", {**product_body, "unitPrice": 45.00})
    call("PUT", R + "/products/{product_id}/category", {"categoryId": t.ids["category_id"]})
    call("POST", R + "/products/{product_id}/deactivate")
    call("POST", R + "/products/{product_id}/activate")

    location = call(
        "POST",
        R + "/locations",
        {"name": "Downtown", "phone": "+15125550100", "address": ADDRESS, "shortCode": "DT"},
    )
    t.ids["location_id"] = location["locationId"]
    call("GET", R + "/locations")
    call("GET", R + "/locations/{location_id}")
    call(
        "PUT",
        R + "/locations/{location_id}",
        {"name": "Downtown", "isActive": True, "address": ADDRESS, "shortCode": "DT"},
    )
    call("GET", R + "/locations/settings")
    call("PUT", R + "/locations/settings", {"locationsEnabled": True})
    call("PUT", R + "/locations/{location_id}/default")
    call("DELETE", R + "/locations/default")

    # --- customers ---------------------------------------------------------------------------
    customer = call(
        "POST",
        R + "/customers",
        {
            "name": {"first": "Ann", "last": "Payer"},
            "email": "ann@example.com",
            "phone": "+14155552671",
            "billingAddress": ADDRESS,
        },
    )
    t.ids["customer_id"] = customer["customerId"]
    c = R + "/customers/{customer_id}"
    call("GET", R + "/customers", params={"limit": 10})
    call("GET", c)
    call("PATCH", c, {"email": "ann.payer@example.com"})
    call("GET", c + "/sms-consent")
    call("PUT", c + "/sms-consent", {"consent": True, "phone": "+14155552671"})
    call("GET", c + "/sms-consent/history")
    call("PUT", c + "/location", {"locationId": t.ids["location_id"]})
    saved = call(
        "POST",
        c + "/payment-methods/{gateway}",
        {"paymentMethodToken": "sim_card_ok", "type": "Card"},
    )
    t.ids["payment_method_id"] = saved["paymentMethodId"]
    call("GET", c + "/payment-methods")
    call("GET", c + "/messages")

    # --- payments ----------------------------------------------------------------------------
    merchant = {"X-Merchant-Reference": t.ids["ref"]}
    charge = {
        "amount": {"value": 25.00, "currency": "USD"},
        "gatewayName": "simulator",
        "paymentMethodToken": "sim_card_ok",
        "type": "Card",
        "capture": False,
        "description": "Call-out fee",
    }
    auth = call(
        "POST",
        "/api/payments/charge",
        charge,
        headers={**merchant, "Idempotency-Key": "order-1001-charge"},
    )
    t.ids["transaction_id"] = auth["transactionId"]
    tx = "/api/payments/{gateway}/transactions/{transaction_id}"
    call("POST", tx + "/capture", {"amount": {"value": 25.00, "currency": "USD"}}, headers=merchant)
    call("POST", tx + "/refund", {"amount": {"value": 5.00, "currency": "USD"}}, headers=merchant)
    call("GET", tx, headers=merchant)
    call("GET", "/api/payments/transactions", params={"limit": 10}, headers=merchant)
    other = call("POST", "/api/payments/charge", charge, headers=merchant)
    call("POST", tx + "/void", headers=merchant, transaction_id=other["transactionId"])

    # --- invoices ----------------------------------------------------------------------------
    invoice_body = {
        "customerId": t.ids["customer_id"],
        "lineItems": [
            {"description": "Pipe repair", "quantity": 2, "unitPrice": 40.00},
            {"description": "Call-out fee", "quantity": 1, "unitPrice": 20.00, "isTaxable": False},
        ],
        "taxRatePercent": 8.25,
        "gateway": "simulator",
        "dueDate": "2030-12-31",
        "description": "Kitchen sink repair",
    }
    invoice = call("POST", R + "/invoices", invoice_body)
    t.ids["invoice_number"] = invoice["invoiceNumber"]
    i = R + "/invoices/{invoice_number}"
    call("GET", R + "/invoices", params={"limit": 10})
    call("GET", i)
    call("POST", i + "/send")
    call("POST", i + "/embed", ok=(200, 409))
    voided = call("POST", R + "/invoices", invoice_body)
    call("POST", i + "/void", invoice_number=voided["invoiceNumber"])
    texting = R + "/texting"
    call("GET", texting)
    call("GET", R + "/messages")

    # --- schedules ---------------------------------------------------------------------------
    schedule_body = {
        "customerId": t.ids["customer_id"],
        "paymentMethodId": t.ids["payment_method_id"],
        "startAtUtc": "2030-01-01T15:00:00Z",
        "cadence": "Monthly",
        "amount": 49.00,
        "currency": "USD",
        "description": "Maintenance plan",
    }
    schedule = call("POST", R + "/scheduled-payments", schedule_body)
    t.ids["scheduled_payment_id"] = schedule["scheduledPaymentId"]
    s = R + "/scheduled-payments/{scheduled_payment_id}"
    call("GET", R + "/scheduled-payments")
    call("GET", s)
    call("POST", s + "/pause")
    call("POST", s + "/resume")
    call("POST", s + "/run-now", headers={"Idempotency-Key": "plan-2030-01-extra"})
    ended = call("POST", R + "/scheduled-payments", schedule_body)
    call("POST", s + "/cancel", scheduled_payment_id=ended["scheduledPaymentId"])

    request_body = {
        "startAtUtc": "2030-02-01T15:00:00Z",
        "cadence": "Monthly",
        "maxCharges": 12,
        "amount": 49.00,
        "currency": "USD",
        "gateway": "simulator",
        "description": "Maintenance plan",
    }
    asked = call("POST", c + "/schedule-requests", request_body)
    t.ids["schedule_request_id"] = asked["scheduleRequestId"]
    call(
        "POST",
        i + "/schedule-requests",
        {"startAtUtc": "2030-02-01T15:00:00Z", "cadence": "Monthly", "amount": 50.00},
    )
    call("GET", R + "/schedule-requests")
    call("GET", R + "/schedule-requests/{schedule_request_id}")
    withdrawn = call("POST", c + "/schedule-requests", request_body)
    call(
        "POST",
        R + "/schedule-requests/{schedule_request_id}/cancel",
        schedule_request_id=withdrawn["scheduleRequestId"],
    )
    extra = call(
        "POST", c + "/payment-methods/{gateway}", {"paymentMethodToken": "sim_card_mastercard"}
    )
    call(
        "DELETE",
        c + "/payment-methods/{payment_method_id}",
        payment_method_id=extra["paymentMethodId"],
    )

    # --- short links -------------------------------------------------------------------------
    link_body = {
        "targetUrl": "https://www.acmeplumbing.com/offers/spring",
        "purpose": "Marketing",
        "label": "Spring offer",
        "merchantReference": t.ids["ref"],
        "expiresInDays": 30,
    }
    link = call("POST", "/api/short-links", link_body)
    t.ids["code"] = link["code"]
    call("GET", "/api/short-links")
    call("GET", "/api/short-links/{code}")
    call("GET", "/api/short-links/{code}/clicks")
    revoked = call("POST", "/api/short-links", {**link_body, "label": "Old offer"})
    call("DELETE", "/api/short-links/{code}", code=revoked["code"])

    # --- the online accounting system (connected only in the portal) ------------------------------
    a = R + "/accounting-online"
    call("GET", a)
    if connect_accounting is not None:
        connect_accounting(t.ids["ref"])
        sync = call("POST", a + "/sync-now", ok=(202,))
        t.ids["run_id"] = sync["runId"]
        call("POST", a + "/sync-customers", ok=(202,))
        call("GET", a + "/sync-runs/{run_id}")
    else:
        call("POST", a + "/sync-now", ok=(409,))
        call("POST", a + "/sync-customers", ok=(409,))
        call("GET", a + "/sync-runs/{run_id}", ok=(404,), run_id="acr_none")
    call("POST", a + "/disconnect")

    # --- events: what the tour did, newest first ------------------------------------------------
    events = call("GET", "/api/events", params={"limit": 2})
    t.ids["event_id"] = events["data"][0]["eventId"]
    call("GET", "/api/events/{event_id}")

    # --- webhook endpoints -------------------------------------------------------------------
    w = "/api/webhook-endpoints"
    hook_body = {
        "url": "https://hooks.acmeplumbing.com/payhub",
        "eventTypes": ["invoice.paid", "payment.refunded"],
        "description": "Bookkeeping sync",
        "alertEmail": "ops@acmeplumbing.com",
    }
    hook = call("POST", w, hook_body)
    t.ids["endpoint_id"] = hook["endpointId"]
    call("GET", w)
    call("GET", w + "/{endpoint_id}")
    call("PATCH", w + "/{endpoint_id}", {"eventTypes": ["*"], "description": "Everything"})
    call("POST", w + "/{endpoint_id}/rotate-secret", {"overlapHours": 24})
    call("GET", w + "/{endpoint_id}/deliveries")
    call("POST", w + "/{endpoint_id}/resend", {"eventId": t.ids["event_id"]}, ok=(202,))
    gone = call("POST", w, {**hook_body, "description": "Old endpoint"})
    call("DELETE", w + "/{endpoint_id}", endpoint_id=gone["endpointId"])
    return t


def spares(tour: Tour) -> Tour:
    """Fresh objects for the operations that end or move what they act on (void, cancel,
    deactivate, delete...), so a fuzzer calling them first does not leave the shared objects
    unusable for the others (``Tour.own``)."""
    t = tour
    call = t.call
    own = t.own

    def give(template: str, method: str, **ids: str) -> None:
        op = t.document["paths"][template][method]
        own[op["operationId"]] = ids

    merchant = {"X-Merchant-Reference": t.ids["ref"]}
    charge = {
        "amount": {"value": 12.00, "currency": "USD"},
        "gatewayName": "simulator",
        "paymentMethodToken": "sim_card_ok",
        "capture": False,
    }
    tx = "/api/payments/{gateway}/transactions/{transaction_id}"
    for action in ("/void", "/capture"):
        made = call("POST", "/api/payments/charge", charge, headers=merchant)
        give(tx + action, "post", transaction_id=made["transactionId"])
    s = R + "/scheduled-payments"
    body = {
        "customerId": t.ids["customer_id"],
        "paymentMethodId": t.ids["payment_method_id"],
        "startAtUtc": "2030-01-01T15:00:00Z",
        "cadence": "Monthly",
        "amount": 9.00,
        "currency": "USD",
    }
    for action in ("/cancel", "/pause", "/run-now"):
        made = call("POST", s, body)
        give(
            s + "/{scheduled_payment_id}" + action,
            "post",
            scheduled_payment_id=made["scheduledPaymentId"],
        )
    paused = call("POST", s, body)
    call(
        "POST",
        s + "/{scheduled_payment_id}/pause",
        scheduled_payment_id=paused["scheduledPaymentId"],
    )
    give(
        s + "/{scheduled_payment_id}/resume",
        "post",
        scheduled_payment_id=paused["scheduledPaymentId"],
    )
    rate = call("POST", R + "/tax-rates", {"name": "Spare rate", "percent": 1})
    give(R + "/tax-rates/{tax_rate_id}/deactivate", "post", tax_rate_id=rate["taxRateId"])
    category = call("POST", R + "/product-categories", {"name": "Spare category"})
    give(
        R + "/product-categories/{category_id}/deactivate",
        "post",
        category_id=category["categoryId"],
    )
    product = call("POST", R + "/products", {"name": "Spare product", "unitPrice": 1})
    give(R + "/products/{product_id}/deactivate", "post", product_id=product["productId"])
    invoice = call(
        "POST",
        R + "/invoices",
        {
            "lineItems": [{"description": "Spare", "quantity": 1, "unitPrice": 5}],
            "gateway": "simulator",
        },
    )
    give(R + "/invoices/{invoice_number}/void", "post", invoice_number=invoice["invoiceNumber"])
    asked = call(
        "POST",
        R + "/customers/{customer_id}/schedule-requests",
        {
            "startAtUtc": "2030-02-01T15:00:00Z",
            "amount": 5,
            "currency": "USD",
            "gateway": "simulator",
        },
    )
    give(
        R + "/schedule-requests/{schedule_request_id}/cancel",
        "post",
        schedule_request_id=asked["scheduleRequestId"],
    )
    link = call("POST", "/api/short-links", {"targetUrl": "https://www.acmeplumbing.com/spare"})
    give("/api/short-links/{code}", "delete", code=link["code"])
    hook = call(
        "POST",
        "/api/webhook-endpoints",
        {"url": "https://hooks.acmeplumbing.com/spare", "eventTypes": ["*"]},
    )
    spare_hook = hook["endpointId"]
    give("/api/webhook-endpoints/{endpoint_id}", "delete", endpoint_id=spare_hook)
    give("/api/webhook-endpoints/{endpoint_id}", "patch", endpoint_id=spare_hook)
    give("/api/webhook-endpoints/{endpoint_id}/rotate-secret", "post", endpoint_id=spare_hook)
    method = call(
        "POST",
        R + "/customers/{customer_id}/payment-methods/{gateway}",
        {"paymentMethodToken": "sim_card_ok"},
    )
    give(
        R + "/customers/{customer_id}/payment-methods/{payment_method_id}",
        "delete",
        payment_method_id=method["paymentMethodId"],
    )
    # Credentials edits (which may disable them) go to a merchant of their own.
    other = call("POST", M, {"externalReference": "spare-merchant", "displayName": "Spare"})
    give(R + "/credentials/{gateway}", "put", ref=other["externalReference"])
    return t


def record() -> None:
    """Run the tour in-process on a fresh database and write the examples file
    (``--keep``: keep the examples already recorded, add the new operations' only)."""
    import tempfile
    from datetime import UTC, datetime
    from urllib.parse import parse_qs, urlsplit

    import httpx
    from litestar.testing import TestClient

    from payhub import Environment, PayHub
    from payhub.adapters.accounting.qbo import QuickBooksOnline
    from payhub.adapters.system import FixedClock
    from payhub_server import create_app
    from tests.integrations.fakes.qbo import FakeQuickBooks

    with tempfile.TemporaryDirectory() as tmp:
        clock = FixedClock(datetime(2029, 11, 20, 16, 30, tzinfo=UTC))
        qbo = FakeQuickBooks(clock.now)
        qbo.add_company("9130354781934026", "Acme Plumbing Books")
        adapter = QuickBooksOnline(qbo.config(), httpx.Client(transport=qbo.transport()))
        hub = PayHub.open(
            f"sqlite:///{tmp}/tour.db", key_file=Path(tmp) / "k", clock=clock, accounting=adapter
        )
        _, issued = hub.operators.create_provider("Tour", Environment.SANDBOX)
        hub.link_admin.set_domain(Environment.SANDBOX, "go.payhub.example")

        def allow(ref: str) -> None:
            scope = hub.provider(hub.authenticate(issued.secret)).merchant(ref)
            scope.invoices.change_embed_origins(add=("https://acme-plumbing.example",))

        def portal_user(ref: str) -> str:
            user = hub.portal.create_user(
                "owner@acme-plumbing.example", "Ann Owner", "owner", merchant_reference=ref
            )
            return user.email

        def connect(ref: str) -> None:
            scope = hub.provider(hub.authenticate(issued.secret)).merchant(ref)
            url = scope.accounting_online.begin_connect()
            back = parse_qs(urlsplit(qbo.sign_in(url, "9130354781934026")).query)
            scope.accounting_online.finish_connect(
                back["state"][0], back["code"][0], back["realmId"][0]
            )

        with TestClient(create_app(hub)) as client:
            document = client.get("/schema/openapi.json").json()
            tour = run(Tour(client, issued.secret, document), allow, portal_user, connect)
        hub.close()
    records = tour.records
    if EXAMPLES.exists() and "--keep" in sys.argv:
        # Only operations not recorded yet (every run draws new ids: a full rewrite would
        # change every example).
        kept = json.loads(EXAMPLES.read_text(encoding="utf-8"))
        records = {**records, **kept}
    text = json.dumps(dict(sorted(records.items())), indent=1, ensure_ascii=False)
    EXAMPLES.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(f"{len(tour.records)} operations recorded in {EXAMPLES}\n")


if __name__ == "__main__":
    record()
