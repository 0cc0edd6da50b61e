"""The accounting repository's contract, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta

import pytest

from payhub.domain.accounting import (
    AccountingSystem,
    CompanyInfo,
    ConnectionStatus,
    LinkKind,
    RemoteEnvironment,
    RemoteLink,
    RunKind,
    RunStatus,
    SyncRun,
    new_connection,
)
from payhub.domain.errors import Conflict
from payhub.ports import Store
from tests.storage.test_contract import T0, merchant, provider

QBO = AccountingSystem.ONLINE


@pytest.fixture
def seeded(store: Store) -> Store:
    with store.unit_of_work() as uow:
        uow.providers.add(provider())
        uow.merchants.add(merchant("mer_1", "acme"))
        uow.merchants.add(merchant("mer_2", "globex"))
    return store


def test_a_connection_round_trips_every_field(seeded: Store) -> None:
    c = new_connection("mer_1", QBO, T0)
    c.state_digest = "d" * 64
    c.state_expires_at = T0 + timedelta(minutes=15)
    with seeded.unit_of_work() as uow:
        assert uow.accounting.get("mer_1", QBO) is None
        uow.accounting.put(c)
    with seeded.unit_of_work() as uow:
        assert uow.accounting.get("mer_1", QBO) == c
        assert uow.accounting.by_state(QBO, "d" * 64) == c
        assert uow.accounting.by_state(QBO, "e" * 64) is None
    company = CompanyInfo("9130", "Acme Books", "USD", automatic_sales_tax=True)
    c.connect(company, RemoteEnvironment.SANDBOX, b"\x00sealed\xff", T0 + timedelta(seconds=5))
    c.invoice_cursor = T0
    with seeded.unit_of_work() as uow:
        uow.accounting.put(c)
    with seeded.unit_of_work() as uow:
        got = uow.accounting.get("mer_1", QBO, for_update=True)
        assert got == c
        assert got is not None
        assert got.tokens_sealed == b"\x00sealed\xff"
        assert got.status is ConnectionStatus.CONNECTED
        assert got.automatic_sales_tax
        assert uow.accounting.by_state(QBO, "d" * 64) is None  # spent on connect
        assert [x.merchant_id for x in uow.accounting.by_company(QBO, "9130")] == ["mer_1"]
    c.disconnect("the grant was revoked in QuickBooks", T0 + timedelta(seconds=9))
    with seeded.unit_of_work() as uow:
        uow.accounting.put(c)
    with seeded.unit_of_work() as uow:
        got = uow.accounting.get("mer_1", QBO)
        assert got is not None
        assert got.tokens_sealed is None
        assert got.status_reason == "the grant was revoked in QuickBooks"
        assert uow.accounting.by_company(QBO, "9130") == []  # only connected ones


def test_links_are_unique_per_remote_id_and_complete_after_the_call(seeded: Store) -> None:
    pending = RemoteLink("mer_1", QBO, LinkKind.CUSTOMER, "cus_1", "req-1", T0, T0)
    with seeded.unit_of_work() as uow:
        uow.accounting.put_link(pending)
        uow.accounting.put_link(RemoteLink("mer_1", QBO, LinkKind.ITEM, "prd_1", "r2", T0, T0, "7"))
    with seeded.unit_of_work() as uow:
        assert uow.accounting.link("mer_1", QBO, LinkKind.CUSTOMER, "cus_1") == pending
        assert uow.accounting.link("mer_2", QBO, LinkKind.CUSTOMER, "cus_1") is None
    pending.remote_id, pending.sync_token = "58", "0"
    with seeded.unit_of_work() as uow:
        uow.accounting.put_link(pending)
        uow.accounting.put_link(
            RemoteLink("mer_2", QBO, LinkKind.CUSTOMER, "cus_9", "r", T0, T0, "58")
        )
    with seeded.unit_of_work() as uow:
        assert uow.accounting.link_by_remote("mer_1", QBO, LinkKind.CUSTOMER, "58") == pending
        assert uow.accounting.link_by_remote("mer_1", QBO, LinkKind.ITEM, "58") is None
        assert [x.local_id for x in uow.accounting.links("mer_1", QBO, LinkKind.CUSTOMER)] == [
            "cus_1"
        ]
        assert (
            uow.accounting.links("mer_1", QBO, LinkKind.ITEM, ["prd_1", "prd_2"])[0].remote_id
            == "7"
        )
        assert uow.accounting.links("mer_1", QBO, LinkKind.ITEM, []) == []
    with pytest.raises(Conflict), seeded.unit_of_work() as uow:
        uow.accounting.put_link(
            RemoteLink("mer_1", QBO, LinkKind.CUSTOMER, "cus_2", "r", T0, T0, "58")
        )


def test_runs_keep_counts_errors_and_progress(seeded: Store) -> None:
    first = SyncRun("acr_1", "mer_1", QBO, RunKind.SYNC_NOW, RunStatus.QUEUED, T0, T0)
    second = SyncRun(
        "acr_2", "mer_1", QBO, RunKind.PUSH, RunStatus.QUEUED, T0 + timedelta(1), T0, subject="x"
    )
    with seeded.unit_of_work() as uow:
        uow.accounting.add_run(first)
        uow.accounting.add_run(second)
    first.status, first.step, first.started_at = RunStatus.SUCCEEDED, "done", T0
    first.finished_at = T0 + timedelta(seconds=3)
    first.count("customersPushed", 3)
    first.error("invoice INV-000004: in EUR; the company's home currency is USD")
    with seeded.unit_of_work() as uow:
        uow.accounting.save_run(first)
    with seeded.unit_of_work() as uow:
        assert uow.accounting.get_run("mer_1", "acr_1") == first
        assert uow.accounting.get_run("mer_2", "acr_1") is None
        assert uow.accounting.latest_run("mer_1", QBO) == second
        assert uow.accounting.latest_run("mer_1", QBO, finished=True) == first
        assert uow.accounting.latest_run("mer_2", QBO) is None
