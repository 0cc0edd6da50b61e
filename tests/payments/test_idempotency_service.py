"""Idempotency owned by the payment service: in-process callers get it, a charge takes two
write transactions, keys are stored as digests and claims are leases."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.storage import migrations, open_store
from payhub.adapters.system import FixedClock
from payhub.domain.errors import Conflict
from payhub.domain.money import Money
from payhub.domain.payments import ChargeRequest, Declined, GatewayCredentials, GatewayResult
from payhub.ports import Store, StoredResponse
from payhub.services import idempotency
from payhub.services.idempotency import (
    LEASE,
    IdempotencyKeyReused,
    IdempotentCall,
    LeaseKeeper,
    claim,
    key_digest,
)
from payhub.services.merchants import CredentialInput
from payhub.services.payments import ChargeInput, StoredFailure
from tests.conftest import START
from tests.payments.conftest import CountingGateway, charge_body
from tests.pg import isolated_schema, postgres_url_or_skip

Client = Any


@pytest.fixture
def merchant(hub: PayHub) -> Any:
    _, issued = hub.operators.create_provider("P")
    tenant = hub.provider(hub.authenticate(issued.secret))
    tenant.merchants.create("m", "Shop")
    shop = tenant.merchant("m")
    shop.credentials.put("simulator", CredentialInput("s", "Sandbox", True))
    return shop


def _rows(hub: PayHub, sql: str) -> list[dict[str, Any]]:
    with hub.store._transaction() as db:  # type: ignore[attr-defined]
        return [dict(r) for r in db.query(sql)]


class WriteCounter:
    """Counts the writing units of work a store opens."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.writes = 0
        real = store.unit_of_work

        def counted(readonly: bool = False) -> AbstractContextManager[Any]:
            if not readonly:
                self.writes += 1
            return real(readonly)

        monkeypatch.setattr(store, "unit_of_work", counted)


def test_in_process_charges_with_a_key_charge_once_and_replay(
    hub: PayHub, merchant: Any, gateway: CountingGateway
) -> None:
    given = ChargeInput(Decimal("12.50"), "USD", "simulator", token="sim_card_ok")
    first = merchant.payments.charge(given, idempotency_key="ord-1")
    again = merchant.payments.charge(given, idempotency_key="ord-1")
    assert again.transaction.id == first.transaction.id
    assert gateway.calls["charge"] == 1
    other = ChargeInput(Decimal("13.00"), "USD", "simulator", token="sim_card_ok")
    with pytest.raises(IdempotencyKeyReused):
        merchant.payments.charge(other, idempotency_key="ord-1")

    declined = ChargeInput(Decimal("5.00"), "USD", "simulator", token="sim_card_decline")
    with pytest.raises(Declined) as first_error:
        merchant.payments.charge(declined, idempotency_key="ord-2")
    with pytest.raises(StoredFailure) as replayed:
        merchant.payments.charge(declined, idempotency_key="ord-2")
    assert replayed.value.status == 402 == first_error.value.status
    assert gateway.calls["charge"] == 2


def test_a_charge_takes_two_write_transactions(
    hub: PayHub, merchant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = WriteCounter(hub.store, monkeypatch)
    given = ChargeInput(Decimal("12.50"), "USD", "simulator", token="sim_card_ok")
    merchant.payments.charge(given, idempotency_key="ord-1")
    assert counter.writes == 2
    merchant.payments.charge(given, idempotency_key="ord-1")  # a replay: one
    assert counter.writes == 3
    declined = ChargeInput(Decimal("5.00"), "USD", "simulator", token="sim_card_decline")
    with pytest.raises(Declined):
        merchant.payments.charge(declined, idempotency_key="ord-2")
    assert counter.writes == 5


def test_in_process_refunds_captures_and_voids_with_a_key_move_money_once(
    hub: PayHub, merchant: Any, gateway: CountingGateway
) -> None:
    """Idempotency for the follow-ups is the service's too: the same call again answers the
    first outcome without reaching the gateway; another call with the key is 422."""
    sale = merchant.payments.charge(
        ChargeInput(Decimal("20.00"), "USD", "simulator", token="sim_card_ok")
    ).transaction
    part = Money.of(Decimal("5.00"), "USD")
    first = merchant.payments.refund("simulator", sale.id, part, idempotency_key="rf-1")
    again = merchant.payments.refund("simulator", sale.id, part, idempotency_key="rf-1")
    assert gateway.calls["refund"] == 1
    assert again.transaction.refunded == first.transaction.refunded == part
    with pytest.raises(IdempotencyKeyReused):
        merchant.payments.refund("simulator", sale.id, None, idempotency_key="rf-1")

    auth = merchant.payments.charge(
        ChargeInput(Decimal("9.00"), "USD", "simulator", token="sim_card_ok", capture=False)
    ).transaction
    merchant.payments.capture("simulator", auth.id, None, idempotency_key="cp-1")
    merchant.payments.capture("simulator", auth.id, None, idempotency_key="cp-1")
    assert gateway.calls["capture"] == 1
    held = merchant.payments.charge(
        ChargeInput(Decimal("3.00"), "USD", "simulator", token="sim_card_ok", capture=False)
    ).transaction
    merchant.payments.void("simulator", held.id, idempotency_key="vd-1")
    voided = merchant.payments.void("simulator", held.id, idempotency_key="vd-1")
    assert gateway.calls["void"] == 1
    assert voided.transaction.status.value == "Voided"


def test_a_refund_with_a_key_takes_two_write_transactions(
    hub: PayHub, merchant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sale = merchant.payments.charge(
        ChargeInput(Decimal("20.00"), "USD", "simulator", token="sim_card_ok")
    ).transaction
    counter = WriteCounter(hub.store, monkeypatch)
    merchant.payments.refund("simulator", sale.id, None, idempotency_key="rf-2")
    assert counter.writes == 2  # claim + reserve; outcome + stored answer
    merchant.payments.refund("simulator", sale.id, None, idempotency_key="rf-2")
    assert counter.writes == 3  # a replay: the claim's transaction only


def test_stored_keys_are_digests_not_the_clients_text(
    client: Client, shop: dict[str, str], hub: PayHub, tmp_path: Path
) -> None:
    secret_key = "order-4242-kept-private"
    response = client.post(
        "/api/payments/charge",
        json=charge_body(),
        headers={**shop, "Idempotency-Key": secret_key},
    )
    assert response.status_code == 201, response.text
    refund = client.post(
        f"/api/payments/simulator/transactions/{response.json()['transactionId']}/refund",
        headers={**shop, "Idempotency-Key": secret_key + "-refund"},
    )
    assert refund.status_code == 200, refund.text
    rows = _rows(hub, "SELECT scope, key FROM idempotency_keys ORDER BY key")
    assert len(rows) == 2
    scope = rows[0]["scope"]
    assert {r["key"] for r in rows} == {
        key_digest(scope, secret_key),
        key_digest(scope, secret_key + "-refund"),
    }
    assert all(secret_key not in str(r) for r in rows)
    if hub.store.url_for_display.startswith("sqlite"):  # type: ignore[attr-defined]
        raw = b"".join(p.read_bytes() for p in tmp_path.glob("payhub.db*"))
        assert secret_key.encode() not in raw


def test_a_renewed_lease_is_not_taken_over_until_it_lapses(hub: PayHub, clock: FixedClock) -> None:
    call = IdempotentCall("prv_1", "k", "fp")
    keeper = LeaseKeeper(hub.store, clock)
    with hub.store.unit_of_work() as uow:
        assert claim(uow, call, clock.now()) is None
    clock.advance(LEASE - timedelta(seconds=5))
    keeper.renew([(call.scope, call.digest)])  # what the keeper thread does while it runs
    clock.advance(timedelta(seconds=10))  # past the first lease, within the renewed one
    with pytest.raises(Conflict), hub.store.unit_of_work() as uow:
        claim(uow, call, clock.now())
    clock.advance(LEASE)
    with hub.store.unit_of_work() as uow:
        assert claim(uow, call, clock.now()) is None  # lapsed: taken over
    with pytest.raises(IdempotencyKeyReused), hub.store.unit_of_work() as uow:
        claim(uow, IdempotentCall("prv_1", "k", "another request"), clock.now())


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
    else:
        with isolated_schema(postgres_url_or_skip()) as url:
            yield url


def test_migration_14_turns_stored_keys_into_digests(
    empty_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payhub.adapters.storage import postgres, sqlite

    before = tuple(m for m in migrations.MIGRATIONS if m.version < 14)
    for module in (sqlite, postgres):
        monkeypatch.setattr(module, "MIGRATIONS", before)
    store = open_store(empty_url)
    store.migrate()
    with store._transaction() as db:  # type: ignore[attr-defined]
        db.execute(
            "INSERT INTO idempotency_keys (scope, key, fingerprint, state, status, body,"
            " created_at, expires_at) VALUES ('prv_1', 'clé-1', 'fp', 'done', 201, :b,"
            " :t, :t)",
            {"b": b"{}", "t": START},
        )
    monkeypatch.undo()
    assert 14 in store.migrate()
    with store._transaction() as db:  # type: ignore[attr-defined]
        rows = [dict(r) for r in db.query("SELECT scope, key FROM idempotency_keys")]
    store.close()
    assert rows == [{"scope": "prv_1", "key": key_digest("prv_1", "clé-1")}]
    assert key_digest("prv_1", "clé-1") == hashlib.sha256("prv_1\nclé-1".encode()).hexdigest()


def test_stored_response_survives_as_before(hub: PayHub) -> None:
    call = IdempotentCall("prv_1", "k", "fp")
    with hub.store.unit_of_work() as uow:
        assert claim(uow, call, hub.deps.clock.now()) is None
        uow.idempotency.finish(call.scope, call.digest, StoredResponse(201, b"{}"))
    with hub.store.unit_of_work() as uow:
        assert claim(uow, call, hub.deps.clock.now()) == StoredResponse(201, b"{}")


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_request_still_calling_the_gateway_keeps_its_claim_past_the_lease(
    store_url: str, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keeper renews the claim while the gateway call runs: however long it takes, a
    retry is refused (409), never let in to charge beside it."""
    monkeypatch.setattr(idempotency, "LEASE", timedelta(seconds=1))
    monkeypatch.setattr(idempotency, "RENEW_EVERY_S", 0.1)
    entered, release = threading.Event(), threading.Event()

    class SlowSimulator(SimulatorGateway):
        def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
            entered.set()
            release.wait(60)
            return super().charge(creds, request)

    gateway = CountingGateway(SlowSimulator())
    hub = PayHub.open(store_url, key_file=key_file, gateways={"simulator": gateway})  # real clock
    try:
        _, issued = hub.operators.create_provider("P")
        tenant = hub.provider(hub.authenticate(issued.secret))
        tenant.merchants.create("m", "Shop")
        shop = tenant.merchant("m")
        shop.credentials.put("simulator", CredentialInput("s", "Sandbox", True))
        given = ChargeInput(Decimal("9.99"), "USD", "simulator", token="sim_card_ok")
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(shop.payments.charge, given, "k")
            assert entered.wait(60)
            watched_since = time.monotonic()
            while time.monotonic() - watched_since < 3 * idempotency.LEASE.total_seconds():
                with pytest.raises(Conflict):
                    shop.payments.charge(given, idempotency_key="k")
                time.sleep(0.1)  # polling interval
            release.set()
            view = first.result(60)
        again = shop.payments.charge(given, idempotency_key="k")
        assert again.transaction.id == view.transaction.id
        assert gateway.calls["charge"] == 1
    finally:
        release.set()
        hub.close()
