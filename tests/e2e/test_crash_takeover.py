"""A server killed mid-charge: a retry of the same request is let in once the dead
process's lease lapses (payhub.services.idempotency.LEASE), and charges once."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from payhub import PayHub
from payhub.services.idempotency import LEASE, RENEW_EVERY_S
from tests.e2e.servers import create_provider, serve, serve_process
from tests.pg import isolated_schema, postgres_url_or_skip

pytestmark = pytest.mark.slow

BODY = {
    "amount": {"value": 17.00, "currency": "USD"},
    "gatewayName": "simulator",
    "paymentMethodToken": "sim_card_ok",
}
# Time for everything but the lease itself: a loaded machine's request and process latency.
SLACK_S = 45.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'payhub.db'}"
    else:
        with isolated_schema(postgres_url_or_skip()) as url:
            yield url


def kill_tree(pid: int) -> None:
    """SIGKILL a process and its descendants (found through /proc), children first."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rpartition(")")[2].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    order: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        order.append(current)
        todo.extend(children.get(current, []))
    for victim in reversed(order):
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)


def _in_flight(hub: PayHub) -> bool:
    merchants = hub.operators.list_merchants()
    if not merchants:
        return False
    with hub.store.unit_of_work(readonly=True) as uow:
        rows = uow.transactions.list(merchants[0].id)
    return bool(rows) and rows[0].status.value == "Pending"


def test_a_retry_takes_over_the_claim_of_a_killed_server_and_charges_once(
    db_url: str, tmp_path: Path
) -> None:
    key = create_provider(db_url, tmp_path)
    headers = {"X-Api-Key": key}
    charge_headers = {**headers, "X-Merchant-Reference": "shop", "Idempotency-Key": "crash-1"}
    hub = PayHub.open(db_url, key_file=tmp_path / "payhub.key")
    try:
        with serve(db_url, tmp_path) as survivor, serve_process(db_url, tmp_path) as (doomed, proc):
            httpx.post(
                f"{survivor}/api/merchant-accounts",
                headers=headers,
                json={"externalReference": "shop", "displayName": "Shop"},
            ).raise_for_status()
            # The doomed server's gateway call lasts long enough to be killed inside it.
            httpx.put(
                f"{survivor}/api/merchant-accounts/shop/credentials/simulator",
                headers=headers,
                json={
                    "apiSecret": "s",
                    "environment": "Sandbox",
                    "additionalFields": {"latencyMs": "8000"},
                },
            ).raise_for_status()

            def first() -> None:
                with contextlib.suppress(httpx.HTTPError):  # the server dies under it
                    httpx.post(f"{doomed}/api/payments/charge", json=BODY, headers=charge_headers)

            caller = threading.Thread(target=first)
            caller.start()
            deadline = time.monotonic() + SLACK_S
            while not _in_flight(hub):  # claimed, transaction pending: in the gateway call
                assert time.monotonic() < deadline, "the first charge never started"
                time.sleep(0.05)
            kill_tree(proc.pid)  # granian's worker process too, not only its parent
            proc.wait()
            killed_at = time.monotonic()
            caller.join()

            def retry() -> httpx.Response:
                return httpx.post(
                    f"{survivor}/api/payments/charge", json=BODY, headers=charge_headers, timeout=60
                )

            assert retry().status_code == 409  # the claim is still leased to the dead process
            deadline = killed_at + LEASE.total_seconds() + RENEW_EVERY_S + SLACK_S
            while (answer := retry()).status_code == 409:
                assert time.monotonic() < deadline, "the dead process's claim was never taken over"
                time.sleep(0.5)
            assert answer.status_code == 201, answer.text
            replay = retry()
            assert replay.headers["idempotent-replayed"] == "true"
            assert replay.json()["transactionId"] == answer.json()["transactionId"]

        merchant = hub.operators.list_merchants()[0]
        with hub.store.unit_of_work() as uow:
            rows = uow.transactions.list(merchant.id)
            events = uow.transactions.events(rows[0].id)
        assert len(rows) == 1  # one transaction: the retry finished the dead process's charge
        assert rows[0].status.value == "Captured"
        assert [e.kind.value for e in events] == ["charge"]
    finally:
        hub.close()
