"""The operator's pages over HTTP: each page's action, through the CLI's own services."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.ports import Job
from tests.conftest import Account
from tests.portal.support import Browser, make_user


@pytest.fixture
def operator(hub: PayHub, browse: Callable[..., Browser]) -> Browser:
    make_user(hub, "op@example.com", "operator", name="Olive Operator")
    b = browse()
    assert b.sign_in("op@example.com").status_code == 303
    return b


def _key_on(page: str) -> str:
    found = re.search(r'id="issued-key">([^<]+)<', page)
    assert found, "no key shown"
    return found.group(1)


def test_create_a_provider_and_its_key_is_shown_once(
    hub: PayHub, operator: Browser, client: TestClient[Litestar]
) -> None:
    made = operator.submit(
        "/portal/operator/providers", "/portal/operator/providers", {"name": "Fieldwork Co"}
    )
    assert made.status_code == 200
    key = _key_on(made.text)
    assert key.startswith("phk_sandbox_")
    assert client.get("/api/merchant-accounts", headers={"X-Api-Key": key}).status_code == 200
    again = operator.get("/portal/operator/providers")
    assert "Fieldwork Co" in again.text
    assert key not in again.text  # never shown again
    bad = operator.submit("/portal/operator/providers", "/portal/operator/providers", {"name": ""})
    assert bad.status_code == 400


def test_issue_a_merchant_key_and_revoke_keys(
    hub: PayHub, operator: Browser, sandbox_provider: Account, client: TestClient[Litestar]
) -> None:
    pid = sandbox_provider.provider.id
    hub.provider(hub.as_provider(pid)).merchants.create("acme-42", "Acme")
    issued = operator.submit(
        "/portal/operator/providers",
        f"/portal/operator/providers/{pid}/keys",
        {"merchant": "acme-42", "label": "till"},
    )
    assert issued.status_code == 200
    key = _key_on(issued.text)
    assert key.startswith("phm_sandbox_")
    record = next(k for k in hub.operators.list_keys(pid) if k.key.label == "till")
    revoked = operator.submit(
        "/portal/operator/providers", f"/portal/operator/keys/{record.key.id}/revoke"
    )
    assert revoked.status_code == 303
    assert client.get("/api/merchant-accounts", headers={"X-Api-Key": key}).status_code == 401
    assert "Revoked" in operator.get("/portal/operator/providers").text
    unknown = operator.submit(
        "/portal/operator/providers",
        f"/portal/operator/providers/{pid}/keys",
        {"merchant": "nobody"},
    )
    assert unknown.status_code == 400


def test_the_other_environments_providers_are_out_of_reach(
    hub: PayHub, operator: Browser, new_provider: Callable[..., Account]
) -> None:
    live = new_provider("Live Payments", Environment.PRODUCTION)
    page = operator.get("/portal/operator/providers")
    assert "Live Payments" not in page.text
    key_id = hub.operators.list_keys(live.provider.id)[0].key.id
    refused = operator.submit(
        "/portal/operator/providers", f"/portal/operator/keys/{key_id}/revoke"
    )
    assert refused.status_code == 404
    assert hub.operators.list_keys(live.provider.id)[0].key.active
    issue = operator.submit(
        "/portal/operator/providers", f"/portal/operator/providers/{live.provider.id}/keys"
    )
    assert issue.status_code == 404


def test_short_link_domain_set_and_clear(hub: PayHub, operator: Browser) -> None:
    page = "/portal/operator/short-links"
    saved = operator.submit(page, page, {"domain": "go.example.com", "action": "set"})
    assert saved.status_code == 303
    assert hub.link_admin.domains()[Environment.SANDBOX] == "go.example.com"
    assert "go.example.com" in operator.get(page).text
    bad = operator.submit(page, page, {"domain": "not a domain", "action": "set"})
    assert bad.status_code == 400
    assert hub.link_admin.domains()[Environment.SANDBOX] == "go.example.com"
    cleared = operator.submit(page, page, {"action": "clear"})
    assert cleared.status_code == 303
    assert hub.link_admin.domains()[Environment.SANDBOX] is None


def test_blocklist_add_and_remove(hub: PayHub, operator: Browser) -> None:
    page = "/portal/operator/blocklist"
    added = operator.submit(page, page, {"domain": "phish.example", "reason": "phishing"})
    assert added.status_code == 200
    assert "phish.example is blocked" in added.text
    assert [(b.domain, b.reason) for b in hub.link_admin.blocklist()] == [
        ("phish.example", "phishing")
    ]
    removed = operator.submit(page, page + "/remove", {"domain": "phish.example"})
    assert removed.status_code == 303
    assert hub.link_admin.blocklist() == []


def test_dead_jobs_are_listed_and_revived(hub: PayHub, operator: Browser) -> None:
    now = hub.deps.clock.now()
    with hub.store.unit_of_work() as uow:
        uow.jobs.enqueue(Job("job_dead1", "outbox", {"message_id": "msg_x"}, now, 0))
        leased = uow.jobs.lease("outbox", now, "w1", 1, now + timedelta(minutes=1))
        assert [j.id for j in leased] == ["job_dead1"]
        uow.jobs.bury("job_dead1", "w1", now, "SMTP said no")
    page = operator.get("/portal/operator/jobs")
    assert "job_dead1" in page.text
    assert "SMTP said no" in page.text
    revived = operator.submit("/portal/operator/jobs", "/portal/operator/jobs/job_dead1/revive")
    assert revived.status_code == 303
    assert hub.dead_letters.list() == []
    again = operator.submit("/portal/operator/jobs", "/portal/operator/jobs/job_dead1/revive")
    assert again.status_code == 404


def test_senders_say_what_is_configured(operator: Browser, monkeypatch: pytest.MonkeyPatch) -> None:
    page = operator.get("/portal/operator/senders").text
    assert page.count("Not configured") == 2
    monkeypatch.setenv("PAYHUB_SMTP_HOST", "smtp.example.com")
    monkeypatch.setenv("PAYHUB_SMTP_FROM", "billing@example.com")
    monkeypatch.setenv("PAYHUB_SMTP_PASSWORD", "hunter2-very-secret")
    page = operator.get("/portal/operator/senders").text
    assert "smtp.example.com:587" in page
    assert "billing@example.com" in page
    assert "hunter2" not in page
    assert page.count("Not configured") == 1


def test_team_invites_and_disables(
    hub: PayHub, sandbox_provider: Account, browse: Callable[..., Browser]
) -> None:
    hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchants.create("s-1", "Shop")
    make_user(hub, "owner@example.com", merchant="s-1")
    b = browse()
    b.sign_in("owner@example.com")
    invited = b.submit(
        "/portal/team",
        "/portal/team/invite",
        {"email": "new@example.com", "displayName": "Nora New", "role": "admin"},
    )
    assert invited.status_code == 200
    assert "/portal/invite/" in invited.text  # no mail server: the link is shown to hand over
    nora = hub.portal.get_user("new@example.com")
    assert nora.merchant_id is not None
    assert nora.role.value == "admin"
    duplicate = b.submit(
        "/portal/team",
        "/portal/team/invite",
        {"email": "new@example.com", "displayName": "Nora", "role": "staff"},
    )
    assert duplicate.status_code == 409
    disabled = b.submit("/portal/team", f"/portal/team/{nora.id}/disable")
    assert disabled.status_code == 303
    assert not hub.portal.get_user(nora.id).active
    # An admin may invite staff only.
    make_user(hub, "admin@example.com", "admin", "s-1", name="Adam")
    a = browse()
    a.sign_in("admin@example.com")
    refused = a.submit(
        "/portal/team",
        "/portal/team/invite",
        {"email": "x@example.com", "displayName": "X", "role": "owner"},
    )
    assert refused.status_code == 403
