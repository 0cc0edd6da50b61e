"""``payhub webhooks``: endpoints managed from the command line, the delivery log and
replays, against the database a worker delivers from."""

from __future__ import annotations

from typing import Any

from payhub import PayHub
from payhub.domain.webhooks import EventRecord
from payhub.ports import WebhookResponse
from payhub.services.webhooks import QUEUE, Deliverer, dispatch
from payhub.services.worker import Worker
from tests.cli.test_cli import Run, as_json, create_provider, db_url, key_file, opened, run
from tests.messaging.conftest import FakeMailer

__all__ = ["db_url", "key_file", "opened", "run"]  # fixtures used from the CLI tests


class Refusing:
    """A receiver that answers 500 to everything."""

    def __init__(self) -> None:
        self.sent: list[dict[str, str]] = []

    def post(self, url: str, headers: dict[str, str], body: bytes, **_: Any) -> WebhookResponse:
        self.sent.append(headers)
        return WebhookResponse(500, 3)


def test_manage_endpoints_read_the_log_and_replay(run: Run, opened: PayHub) -> None:
    provider = create_provider(run)["providerId"]
    made = as_json(
        run(
            "webhooks",
            "endpoints",
            "create",
            "--provider",
            provider,
            "--url",
            "https://hooks.acmeplumbing.com/in",
            "--event",
            "invoice.paid",
            "--alert-email",
            "ops@acmeplumbing.com",
            "--json",
        )
    )
    assert made["secret"].startswith("whsec_")
    endpoint = made["endpointId"]
    listed = as_json(run("webhooks", "endpoints", "list", "--provider", provider, "--json"))
    assert [e["endpointId"] for e in listed["data"]] == [endpoint]
    assert "secret" not in listed["data"][0]
    shown = run("webhooks", "endpoints", "show", endpoint)  # the provider is found
    assert "https://hooks.acmeplumbing.com/in" in shown.output
    assert made["secret"] not in shown.output
    refused = run(
        "webhooks", "endpoints", "update", endpoint, "--url", "https://10.0.0.1/x", code=2
    )
    assert "url" in refused.output
    assert "disabled" in run("webhooks", "endpoints", "disable", endpoint).output
    assert "enabled" in run("webhooks", "endpoints", "enable", endpoint).output
    rotated = as_json(run("webhooks", "endpoints", "rotate-secret", endpoint, "--json"))
    assert rotated["secret"] != made["secret"]

    event = EventRecord(
        "evt_cli", "invoice.paid", opened.deps.clock.now(), provider, None, "inv_1", {"id": "inv_1"}
    )
    with opened.store.unit_of_work() as uow:
        dispatch(uow, opened.deps, event)
    receiver = Refusing()
    deliverer = Deliverer(opened.deps, receiver, FakeMailer())
    Worker(opened.deps, {QUEUE: deliverer.handle}, "w").run_once()
    assert len(receiver.sent) == 1
    log = as_json(run("webhooks", "deliveries", endpoint, "--json"))
    assert [(a["eventId"], a["statusCode"], a["outcome"]) for a in log["data"]] == [
        ("evt_cli", 500, "retrying")
    ]
    assert "evt_cli" in run("webhooks", "deliveries", endpoint).output
    replayed = as_json(run("webhooks", "replay", "evt_cli", "--json"))
    assert [d["endpointId"] for d in replayed] == [endpoint]
    assert "no provider has it" in run("webhooks", "replay", "evt_nope", code=1).output
    run("webhooks", "endpoints", "delete", endpoint)
    assert (
        as_json(run("webhooks", "endpoints", "list", "--provider", provider, "--json"))["data"]
        == []
    )
