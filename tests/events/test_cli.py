"""``payhub events list``: a provider's events as a table or JSON, filtered like the API."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub_cli.main import cli
from tests.conftest import Account
from tests.invoices.conftest import Invoicing

Run = Callable[..., Result]

pytestmark = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)


@pytest.fixture
def run(store_url: str, key_file: Path, hub: PayHub) -> Run:
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(key_file)})

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, ["events", "list", *args, "--db", store_url])
        assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
        return result

    return invoke


@pytest.fixture
def recent(clock: FixedClock) -> None:
    """The CLI reads with the real clock: the events must be from the last 30 days."""
    clock.set(datetime.now(UTC).replace(microsecond=0))


def test_lists_newest_first_with_filters_and_json(
    recent: None, run: Run, shop: Invoicing, customer: dict[str, Any]
) -> None:
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{number}/send"))
    table = run().output
    lines = table.splitlines()
    assert lines[0].split() == ["EVENT", "TYPE", "OBJECT", "MERCHANT", "CREATED"]
    assert [line.split()[1] for line in lines[2:]] == ["invoice.sent", "customer.created"]
    assert f"customer {customer['customerId']}" in table
    only = run("--type", "customer.created").output
    assert "invoice.sent" not in only
    assert "customer.created" in only
    body = json.loads(run("--json", "--merchant", "acme", "--limit", "1").output)
    assert body["hasMore"] is True
    [sent] = body["data"]
    assert (sent["type"], sent["merchantReference"]) == ("invoice.sent", "acme")
    assert sent["data"]["invoiceNumber"] == number
    assert body["nextCursor"] == sent["eventId"]
    rest = json.loads(run("--json", "--starting-after", body["nextCursor"]).output)
    assert [r["type"] for r in rest["data"]] == ["customer.created"]
    about = run("--object-type", "invoice", "--object-id", sent["objectId"]).output
    assert "invoice.sent" in about
    assert "customer.created" not in about


def test_refuses_what_it_cannot_tell(
    recent: None, run: Run, shop: Invoicing, other_provider: Account
) -> None:
    assert "provider" in run(code=2).output  # two providers: which one?
    assert "no merchant" in run("--merchant", "nope", code=1).output
    assert "(no events in the last 30 days)" in run("--provider", other_provider.provider.id).output
    assert (
        "objectType"
        in run("--provider", other_provider.provider.id, "--object-id", "x", code=2).output
    )
