"""``/api/webhook-endpoints`` over HTTP on both stores: the secret shown once, updates,
disable/enable, delete, rotation, the delivery log, resend, merchant keys and tenancy. Each
test checks what the database holds afterwards, not only the status."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.environments import Environment
from payhub.services.worker import Worker
from tests.conftest import Account, api_headers
from tests.http.support import error_fields, problem
from tests.webhooks.conftest import Events, Receiver

Client = TestClient[Litestar]
W = "/api/webhook-endpoints"
URL = "https://hooks.acmeplumbing.com/payhub"


def create(client: Client, account: Account | str, **body: Any) -> Any:
    headers = account.headers if isinstance(account, Account) else api_headers(account)
    response = client.post(W, json={"url": URL, "eventTypes": ["*"], **body}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def stored(hub: PayHub, account: Account, endpoint_id: str) -> Any:
    with hub.store.unit_of_work(readonly=True) as uow:
        return uow.webhooks.get_endpoint(account.provider.id, endpoint_id)


def test_create_shows_the_secret_once_and_stores_it_sealed(
    client: Client, hub: PayHub, sandbox_provider: Account
) -> None:
    made = create(client, sandbox_provider, description="Books", alertEmail="ops@acme.com")
    secret = made["secret"]
    assert secret.startswith("whsec_")
    assert len(secret) >= len("whsec_") + 32  # base64 of 24+ bytes
    assert made["eventTypes"] == ["*"]
    assert made["enabled"] is True
    row = stored(hub, sandbox_provider, made["endpointId"])
    assert secret.encode() not in row.secret_sealed
    assert hub.deps.secrets.open(row.secret_sealed).decode() == secret
    read = client.get(f"{W}/{made['endpointId']}", headers=sandbox_provider.headers).json()
    listed = client.get(W, headers=sandbox_provider.headers).json()["data"]
    assert read["secret"] is None
    assert [e["secret"] for e in listed] == [None]
    assert secret not in str(read) + str(listed)
    assert {k: v for k, v in read.items() if k != "secret"} == {
        k: v for k, v in made.items() if k != "secret"
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "http://hooks.acmeplumbing.com/x"}, "url"),
        ({"url": "https://10.0.0.8/x"}, "url"),
        ({"url": "https://billing.internal/x"}, "url"),
        ({"url": "https://hooks.localhost/x"}, "url"),
        ({"url": "https://hooks.acmeplumbing.com/x#frag"}, "url"),
        ({"eventTypes": []}, "eventTypes"),
        ({"eventTypes": ["*", "invoice.paid"]}, "eventTypes"),
        ({"eventTypes": ["Invoice Paid"]}, "eventTypes"),
        ({"alertEmail": "not-an-address"}, "alertEmail"),
        ({"description": "x" * 501}, "description"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_changes_nothing(
    client: Client, hub: PayHub, sandbox_provider: Account, body: dict[str, Any], field: str
) -> None:
    sent = {"url": URL, "eventTypes": ["*"], **body}
    response = client.post(W, json=sent, headers=sandbox_provider.headers)
    assert error_fields(response) == [field]
    with hub.store.unit_of_work(readonly=True) as uow:
        assert uow.webhooks.list_endpoints(sandbox_provider.provider.id) == []


def test_loopback_is_refused_for_production_even_with_the_test_setting(
    client: Client, new_provider: Callable[..., Account], receiver: Receiver
) -> None:
    sandbox = new_provider("Sandbox", Environment.SANDBOX)
    live = new_provider("Live", Environment.PRODUCTION)
    body = {"url": receiver.url(), "eventTypes": ["*"]}
    assert client.post(W, json=body, headers=sandbox.headers).status_code == 201
    assert error_fields(client.post(W, json=body, headers=live.headers)) == ["url"]


def test_update_disable_enable_and_delete(
    client: Client, hub: PayHub, sandbox_provider: Account
) -> None:
    made = create(client, sandbox_provider, eventTypes=["invoice.paid"])
    path = f"{W}/{made['endpointId']}"
    headers = sandbox_provider.headers
    changed = client.patch(
        path,
        json={
            "url": "https://erp.acmeplumbing.com/in",
            "eventTypes": ["invoice.paid", "invoice.sent"],
        },
        headers=headers,
    ).json()
    assert changed["url"] == "https://erp.acmeplumbing.com/in"
    assert stored(hub, sandbox_provider, made["endpointId"]).event_types == (
        "invoice.paid",
        "invoice.sent",
    )
    bad = client.patch(path, json={"url": "https://10.1.2.3/x"}, headers=headers)
    assert error_fields(bad) == ["url"]
    assert (
        stored(hub, sandbox_provider, made["endpointId"]).url == "https://erp.acmeplumbing.com/in"
    )
    off = client.patch(path, json={"enabled": False}, headers=headers).json()
    assert off["enabled"] is False
    assert off["disabledReason"] == "disabled by the owner"
    assert stored(hub, sandbox_provider, made["endpointId"]).enabled is False
    on = client.patch(path, json={"enabled": True}, headers=headers).json()
    assert on["enabled"] is True
    assert on["disabledReason"] is None
    assert client.delete(path, headers=headers).status_code == 204
    assert stored(hub, sandbox_provider, made["endpointId"]) is None
    problem(client.get(path, headers=headers), 404)
    assert client.get(W, headers=headers).json()["data"] == []


def test_rotation_returns_a_new_secret_and_keeps_the_old_one_for_the_overlap(
    client: Client, hub: PayHub, sandbox_provider: Account
) -> None:
    made = create(client, sandbox_provider)
    path = f"{W}/{made['endpointId']}/rotate-secret"
    rotated = client.post(path, json={"overlapHours": 2}, headers=sandbox_provider.headers)
    assert rotated.status_code == 200, rotated.text
    body = rotated.json()
    assert body["secret"].startswith("whsec_")
    assert body["secret"] != made["secret"]
    row = stored(hub, sandbox_provider, made["endpointId"])
    assert hub.deps.secrets.open(row.secret_sealed).decode() == body["secret"]
    assert row.previous_secret_sealed is not None
    assert hub.deps.secrets.open(row.previous_secret_sealed).decode() == made["secret"]
    assert (row.previous_secret_expires_at - hub.deps.clock.now()).total_seconds() == 7200
    too_long = client.post(path, json={"overlapHours": 200}, headers=sandbox_provider.headers)
    assert error_fields(too_long) == ["overlapHours"]
    assert hub.deps.secrets.open(
        stored(hub, sandbox_provider, made["endpointId"]).secret_sealed
    ) == (body["secret"].encode())


def test_merchant_keys_manage_only_their_own_merchants_endpoints(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., Any],
    merchant_key: Callable[[Account, str], str],
) -> None:
    make_merchant(sandbox_provider, "acme")
    make_merchant(sandbox_provider, "bolt")
    acme_key = merchant_key(sandbox_provider, "acme")
    everything = create(client, sandbox_provider)
    for_bolt = create(client, sandbox_provider, merchantReference="bolt")
    own = create(client, acme_key)
    assert own["merchantReference"] == "acme"  # limited to its merchant without asking
    listed = client.get(W, headers=api_headers(acme_key)).json()["data"]
    assert [e["endpointId"] for e in listed] == [own["endpointId"]]
    for other in (everything, for_bolt):
        problem(client.get(f"{W}/{other['endpointId']}", headers=api_headers(acme_key)), 404)
        problem(client.delete(f"{W}/{other['endpointId']}", headers=api_headers(acme_key)), 404)
        assert stored(hub, sandbox_provider, other["endpointId"]) is not None
    problem(
        client.post(
            W,
            json={"url": URL, "eventTypes": ["*"], "merchantReference": "bolt"},
            headers=api_headers(acme_key),
        ),
        403,
    )
    provider_view = client.get(W, headers=sandbox_provider.headers).json()["data"]
    assert {e["endpointId"] for e in provider_view} == {
        everything["endpointId"],
        for_bolt["endpointId"],
        own["endpointId"],
    }
    only_bolt = client.get(
        W, params={"merchantReference": "bolt"}, headers=sandbox_provider.headers
    ).json()["data"]
    assert [e["endpointId"] for e in only_bolt] == [for_bolt["endpointId"]]


def test_another_provider_cannot_see_or_touch_an_endpoint(
    client: Client, hub: PayHub, sandbox_provider: Account, other_provider: Account
) -> None:
    made = create(client, sandbox_provider)
    path = f"{W}/{made['endpointId']}"
    problem(client.get(path, headers=other_provider.headers), 404)
    problem(client.patch(path, json={"enabled": False}, headers=other_provider.headers), 404)
    problem(client.post(path + "/rotate-secret", json={}, headers=other_provider.headers), 404)
    problem(client.get(path + "/deliveries", headers=other_provider.headers), 404)
    assert client.get(W, headers=other_provider.headers).json()["data"] == []
    assert stored(hub, sandbox_provider, made["endpointId"]).enabled is True


def test_list_pages_with_a_cursor(client: Client, sandbox_provider: Account) -> None:
    made = {create(client, sandbox_provider, description=f"n{i}")["endpointId"] for i in range(3)}
    everything = [
        e["endpointId"] for e in client.get(W, headers=sandbox_provider.headers).json()["data"]
    ]
    assert set(everything) == made
    first = client.get(W, params={"limit": 2}, headers=sandbox_provider.headers).json()
    assert [e["endpointId"] for e in first["data"]] == everything[:2]
    assert first["hasMore"] is True
    rest = client.get(
        W,
        params={"limit": 2, "startingAfter": first["nextCursor"]},
        headers=sandbox_provider.headers,
    ).json()
    assert [e["endpointId"] for e in rest["data"]] == everything[2:]
    assert rest["hasMore"] is False


def test_the_delivery_log_and_resend_over_http(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    receiver: Receiver,
    events: Events,
    worker: Worker,
) -> None:
    made = create(client, sandbox_provider, url=receiver.url())
    receiver.fail(1, 503)
    event = events.emit(sandbox_provider.provider.id)
    worker.run_once()
    log = client.get(
        f"{W}/{made['endpointId']}/deliveries", headers=sandbox_provider.headers
    ).json()
    (attempt,) = log["data"]
    assert attempt["eventId"] == event.id
    assert attempt["statusCode"] == 503
    assert attempt["outcome"] == "retrying"
    assert attempt["nextAttemptAtUtc"] is not None
    assert made["secret"] not in str(log)
    resent = client.post(
        f"{W}/{made['endpointId']}/resend",
        json={"eventId": event.id},
        headers=sandbox_provider.headers,
    )
    assert resent.status_code == 202, resent.text
    assert resent.json()["status"] == "waiting"  # behind the open delivery of the same object
    problem(
        client.post(
            f"{W}/{made['endpointId']}/resend",
            json={"eventId": "evt_unknown"},
            headers=sandbox_provider.headers,
        ),
        404,
    )
    with hub.store.unit_of_work(readonly=True) as uow:
        assert len(uow.webhooks.deliveries_of_event(sandbox_provider.provider.id, event.id)) == 2
    client.patch(
        f"{W}/{made['endpointId']}", json={"enabled": False}, headers=sandbox_provider.headers
    ).raise_for_status()
    problem(
        client.post(
            f"{W}/{made['endpointId']}/resend",
            json={"eventId": event.id},
            headers=sandbox_provider.headers,
        ),
        409,
    )
    with hub.store.unit_of_work(readonly=True) as uow:
        assert len(uow.webhooks.deliveries_of_event(sandbox_provider.provider.id, event.id)) == 2
