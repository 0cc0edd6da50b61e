"""The portal's schedule commands: ``payhub schedules list`` and ``payhub schedules requests``."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.services.worker import Pass
from payhub_cli.main import cli
from tests.customers.support import Shop
from tests.schedules.conftest import at

Run = Callable[..., Result]

pytestmark = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)


@pytest.fixture
def run(store_url: str, key_file: Path, hub: PayHub) -> Run:
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(key_file)})

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, ["schedules", *args, "--db", store_url])
        assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
        return result

    return invoke


def test_list_shows_amount_cadence_state_next_run_and_failures(
    run: Run,
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    assert "(no scheduled payments)" in run("list", "--merchant", "acme").output
    cid = customer["customerId"]
    monthly = shop.created(
        "/scheduled-payments",
        {"customerId": cid, "paymentMethodId": save_card(), "startAtUtc": at(clock, hours=1),
         "cadence": "Monthly", "amount": 25},
    )  # fmt: skip
    clock.advance(timedelta(minutes=1))  # newest first is by creation time; ids are random
    declined = shop.created(
        "/scheduled-payments",
        {"customerId": cid, "paymentMethodId": save_card("sim_card_decline"),
         "startAtUtc": at(clock, hours=2), "amount": 12.5},
    )  # fmt: skip
    shop.ok(shop.post(f"/scheduled-payments/{monthly['scheduledPaymentId']}/pause"))
    clock.advance(timedelta(hours=2))
    run_worker()  # the one-time schedule's card is declined: one failure, retried in 4 hours

    text = run("list", "--merchant", "acme").output
    header, _, *rows = text.splitlines()
    for column in ("ID", "CUSTOMER", "AMOUNT", "CADENCE", "STATUS", "NEXT RUN", "FAILURES"):
        assert column in header
    by_id = {row.split()[0]: row.split() for row in rows}
    assert set(by_id) == {monthly["scheduledPaymentId"], declined["scheduledPaymentId"]}
    assert rows[0].split()[0] == declined["scheduledPaymentId"]  # newest first
    paused = by_id[monthly["scheduledPaymentId"]]
    # the customer by name and money as the pages show it (docs/money.md)
    assert paused[1:6] == ["Ada", "Lovelace", "$25.00", "Monthly", "Paused"]
    failing = by_id[declined["scheduledPaymentId"]]
    retry_at = (clock.now() + timedelta(hours=4)).strftime("%Y-%m-%d %H:%M")
    assert failing[1:6] == ["Ada", "Lovelace", "$12.50", "OneTime", "Active"]
    assert " ".join(failing[6:9]) == f"{retry_at} UTC"
    assert failing[9:] == ["1", "0"]  # one failure, no successful charge

    as_json = json.loads(run("list", "--merchant", "acme", "--status", "Paused", "--json").stdout)
    assert [s["scheduledPaymentId"] for s in as_json["data"]] == [monthly["scheduledPaymentId"]]
    assert (as_json["data"][0]["status"], as_json["data"][0]["amount"]) == ("Paused", "25.00")
    assert as_json["hasMore"] is False
    paged = json.loads(run("list", "--merchant", "acme", "--limit", "1", "--json").stdout)
    assert paged["hasMore"] is True
    assert paged["nextCursor"] == declined["scheduledPaymentId"]
    assert "Invalid value for '--status'" in run("list", "--merchant", "acme", "--status",
                                                 "Bogus", code=2).output  # fmt: skip
    assert "no merchant" in run("list", "--merchant", "nobody", code=1).output


def test_requests_show_state_the_link_while_pending_and_the_schedule_once_approved(
    run: Run, shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    assert "(no schedule requests)" in run("requests", "--merchant", "acme").output
    cid = customer["customerId"]
    body = {"gateway": "simulator", "startAtUtc": at(clock, days=2), "cadence": "Weekly",
            "amount": 40}  # fmt: skip
    pending = shop.created(f"/customers/{cid}/schedule-requests", body)
    withdrawn = shop.created(f"/customers/{cid}/schedule-requests", {**body, "amount": 15})
    shop.ok(shop.post(f"/schedule-requests/{withdrawn['scheduleRequestId']}/cancel"))

    text = run("requests", "--merchant", "acme").output
    header, _, *rows = text.splitlines()
    for column in ("ID", "CUSTOMER", "AMOUNT", "CADENCE", "FIRST RUN", "STATUS", "LINK"):
        assert column in header
    by_id = {row.split()[0]: row for row in rows}
    assert pending["approvalUrl"] in by_id[pending["scheduleRequestId"]]
    assert "Pending" in by_id[pending["scheduleRequestId"]]
    assert "$40.00" in by_id[pending["scheduleRequestId"]]
    assert "Ada Lovelace" in by_id[pending["scheduleRequestId"]]
    cancelled = by_id[withdrawn["scheduleRequestId"]]
    assert "Cancelled" in cancelled
    assert withdrawn["approvalUrl"] not in cancelled  # a dead link is not offered to resend

    listed = json.loads(run("requests", "--merchant", "acme", "--json").stdout)["data"]
    assert {r["scheduleRequestId"]: r["status"] for r in listed} == {
        pending["scheduleRequestId"]: "Pending",
        withdrawn["scheduleRequestId"]: "Cancelled",
    }
    mine = next(r for r in listed if r["scheduleRequestId"] == pending["scheduleRequestId"])
    assert (mine["amount"], mine["cadence"], mine["scheduledPaymentId"]) == (
        "40.00",
        "Weekly",
        None,
    )
    assert mine["approvalUrl"] == pending["approvalUrl"]
