"""The Store contract, written once and run against SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from payhub.adapters.storage import open_store
from payhub.adapters.storage.migrations import MIGRATIONS
from payhub.domain.accounts import ApiKey, GatewayCredential, Merchant, Provider
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict
from payhub.domain.keys import KeyKind
from payhub.ports import IdempotencyClaim, Job, Store, StoredResponse

T0 = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


def provider(pid: str = "prv_1", at: datetime = T0) -> Provider:
    return Provider(id=pid, name=f"Provider {pid}", environment=Environment.SANDBOX, created_at=at)


def merchant(mid: str, ref: str, pid: str = "prv_1", at: datetime = T0) -> Merchant:
    return Merchant(
        id=mid, provider_id=pid, external_reference=ref, display_name=f"Shop {ref}", created_at=at
    )


def api_key(
    kid: str, pid: str = "prv_1", at: datetime = T0, merchant_id: str | None = None
) -> ApiKey:
    return ApiKey(
        id=f"key_{kid}",
        key_id=kid,
        provider_id=pid,
        kind=KeyKind.MERCHANT if merchant_id else KeyKind.PROVIDER,
        environment=Environment.SANDBOX,
        digest=f"digest-{kid}",
        hint=f"…{kid[-4:]}",
        label=f"label {kid}",
        created_at=at,
        merchant_id=merchant_id,
    )


def job(jid: str, due: datetime = T0, queue: str = "mail") -> Job:
    return Job(id=jid, queue=queue, payload={"to": jid, "n": [1, 2]}, due_at=due, attempts=0)


@pytest.fixture
def seeded(store: Store) -> Store:
    """One provider with one merchant, the shape most tests start from."""
    with store.unit_of_work() as uow:
        uow.providers.add(provider())
        uow.merchants.add(merchant("mer_1", "acme-42"))
    return store


# --- providers and keys --------------------------------------------------------------------


def test_providers_add_get_list_count(store: Store) -> None:
    with store.unit_of_work() as uow:
        assert uow.providers.count() == 0
        uow.providers.add(provider("prv_b", T0 + timedelta(seconds=1)))
        uow.providers.add(provider("prv_a", T0))
    with store.unit_of_work() as uow:
        assert uow.providers.get("prv_a") == provider("prv_a", T0)
        assert uow.providers.get("prv_missing") is None
        assert [p.id for p in uow.providers.list()] == ["prv_a", "prv_b"]
        assert uow.providers.count() == 2


def test_api_keys_add_get_list_revoke(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.providers.add(provider("prv_2"))
        uow.api_keys.add(api_key("kid2", at=T0 + timedelta(seconds=2), merchant_id="mer_1"))
        uow.api_keys.add(api_key("kid1", at=T0 + timedelta(seconds=1)))
        uow.api_keys.add(api_key("kid3", pid="prv_2"))
    with seeded.unit_of_work() as uow:
        assert uow.api_keys.get("key_kid1") == api_key("kid1", at=T0 + timedelta(seconds=1))
        by_key_id = uow.api_keys.get_by_key_id("kid2")
        assert by_key_id is not None
        assert by_key_id.merchant_id == "mer_1"
        assert by_key_id.kind is KeyKind.MERCHANT
        assert uow.api_keys.get_by_key_id("nope") is None
        assert [k.key_id for k in uow.api_keys.list("prv_1")] == ["kid1", "kid2"]
        assert [k.key_id for k in uow.api_keys.list()] == ["kid3", "kid1", "kid2"]
        uow.api_keys.revoke("key_kid1", T0 + timedelta(hours=1))
    with seeded.unit_of_work() as uow:
        # A second revoke keeps the first time.
        uow.api_keys.revoke("key_kid1", T0 + timedelta(hours=2))
    with seeded.unit_of_work() as uow:
        revoked = uow.api_keys.get("key_kid1")
        assert revoked is not None
        assert revoked.revoked_at == T0 + timedelta(hours=1)
        assert not revoked.active
        other = uow.api_keys.get("key_kid2")
        assert other is not None
        assert other.active


# --- merchants -----------------------------------------------------------------------------


def test_merchant_add_and_lookups(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        assert uow.merchants.get("mer_1") == merchant("mer_1", "acme-42")
        assert uow.merchants.get_by_reference("prv_1", "acme-42") == merchant("mer_1", "acme-42")
        assert uow.merchants.get_by_reference("prv_1", "other") is None
        assert uow.merchants.get_by_reference("prv_2", "acme-42") is None
        assert uow.merchants.get("mer_missing") is None


def test_duplicate_reference_is_a_conflict_and_rolls_back(seeded: Store) -> None:
    def add_two() -> None:
        with seeded.unit_of_work() as uow:
            uow.merchants.add(merchant("mer_x", "first-in-this-uow"))
            uow.merchants.add(merchant("mer_2", "acme-42"))

    with pytest.raises(Conflict, match="acme-42"):
        add_two()
    with seeded.unit_of_work() as uow:
        assert uow.merchants.get("mer_2") is None
        assert uow.merchants.get("mer_x") is None
        assert [m.id for m in uow.merchants.list("prv_1")] == ["mer_1"]


def test_same_reference_under_two_providers(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.providers.add(provider("prv_2"))
        uow.merchants.add(merchant("mer_2", "acme-42", pid="prv_2"))
    with seeded.unit_of_work() as uow:
        first = uow.merchants.get_by_reference("prv_1", "acme-42")
        second = uow.merchants.get_by_reference("prv_2", "acme-42")
        assert first is not None
        assert second is not None
        assert (first.id, second.id) == ("mer_1", "mer_2")


def test_merchant_cursor_pagination(store: Store) -> None:
    refs = [f"shop-{i:02d}" for i in range(7)]
    with store.unit_of_work() as uow:
        uow.providers.add(provider("prv_1"))
        uow.providers.add(provider("prv_2"))
        for i, ref in enumerate(reversed(refs)):
            uow.merchants.add(merchant(f"mer_{i}", ref))
        uow.merchants.add(merchant("mer_other", "shop-03a", pid="prv_2"))
    pages: list[list[str]] = []
    after: str | None = None
    with store.unit_of_work() as uow:
        while True:
            page = uow.merchants.list("prv_1", after=after, limit=3)
            if not page:
                break
            pages.append([m.external_reference for m in page])
            after = page[-1].external_reference
        everyone = [m.external_reference for m in uow.merchants.list(None)]
    assert pages == [refs[0:3], refs[3:6], refs[6:7]]
    assert everyone == [*refs[:4], "shop-03a", *refs[4:]]


# --- credentials ---------------------------------------------------------------------------


def test_credentials_upsert_keeps_created_at(seeded: Store) -> None:
    first = GatewayCredential(
        merchant_id="mer_1",
        gateway="stripe",
        environment=Environment.SANDBOX,
        enabled=True,
        sealed=b"\x00sealed-1\xff",
        created_at=T0,
        updated_at=T0,
    )
    later = T0 + timedelta(days=1)
    second = GatewayCredential(
        merchant_id="mer_1",
        gateway="stripe",
        environment=Environment.PRODUCTION,
        enabled=False,
        sealed=b"sealed-2",
        created_at=later,
        updated_at=later,
    )
    with seeded.unit_of_work() as uow:
        uow.credentials.put(first)
    with seeded.unit_of_work() as uow:
        assert uow.credentials.get("mer_1", "stripe") == first
        uow.credentials.put(second)
        uow.credentials.put(
            GatewayCredential("mer_1", "adyen", Environment.SANDBOX, True, b"a", T0, T0)
        )
    with seeded.unit_of_work() as uow:
        stored = uow.credentials.get("mer_1", "stripe")
        assert stored is not None
        assert stored.created_at == T0
        assert stored.updated_at == later
        assert (stored.environment, stored.enabled, stored.sealed) == (
            Environment.PRODUCTION,
            False,
            b"sealed-2",
        )
        assert isinstance(stored.sealed, bytes)
        assert [c.gateway for c in uow.credentials.list("mer_1")] == ["adyen", "stripe"]
        assert uow.credentials.get("mer_1", "square") is None


# --- sequences -----------------------------------------------------------------------------


def test_sequences_start_and_increment(store: Store) -> None:
    with store.unit_of_work() as uow:
        assert uow.sequences.next_value("invoice", start=1000) == 1000
        assert uow.sequences.next_value("invoice", start=1000) == 1001
        assert uow.sequences.next_value("receipt") == 1
    with store.unit_of_work() as uow:
        assert uow.sequences.next_value("invoice", start=1000) == 1002
        assert uow.sequences.next_value("receipt") == 2


def test_sequence_values_taken_in_a_failed_unit_of_work_are_given_again(store: Store) -> None:
    def take_then_fail() -> None:
        with store.unit_of_work() as uow:
            assert uow.sequences.next_value("invoice") == 1
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        take_then_fail()
    with store.unit_of_work() as uow:
        assert uow.sequences.next_value("invoice") == 1


# --- idempotency ---------------------------------------------------------------------------


def test_idempotency_claim_finish_replay_and_mismatch(store: Store) -> None:
    exp = T0 + timedelta(hours=24)
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("prv_1", "k1", "fp-a", T0, exp) == IdempotencyClaim("new")
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("prv_1", "k1", "fp-a", T0, exp).state == "in_flight"
        assert uow.idempotency.claim("prv_1", "k1", "fp-b", T0, exp).state == "mismatch"
        # Scopes are separate callers: the same key is new for another one.
        assert uow.idempotency.claim("prv_2", "k1", "fp-a", T0, exp).state == "new"
        uow.idempotency.finish("prv_1", "k1", StoredResponse(201, b'{"id":"inv_1"}'))
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("prv_1", "k1", "fp-a", T0, exp) == IdempotencyClaim(
            "done", StoredResponse(201, b'{"id":"inv_1"}')
        )
        assert uow.idempotency.claim("prv_1", "k1", "fp-b", T0, exp).state == "mismatch"
        # Release forgets only unfinished claims.
        uow.idempotency.release("prv_1", "k1")
        assert uow.idempotency.claim("prv_1", "k1", "fp-a", T0, exp).state == "done"


def test_an_abandoned_claim_is_taken_over_only_by_the_same_request(store: Store) -> None:
    exp = T0 + timedelta(hours=24)
    later = T0 + timedelta(minutes=11)
    cutoff = later - timedelta(minutes=10)
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("s", "k", "fp-a", T0, exp).state == "new"
    with store.unit_of_work() as uow:
        # Still young: in flight. Another request with the key: mismatch, never a takeover.
        assert uow.idempotency.claim("s", "k", "fp-a", T0, exp, T0).state == "in_flight"
        assert uow.idempotency.claim("s", "k", "fp-b", later, exp, cutoff).state == "mismatch"
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("s", "k", "fp-a", later, exp, cutoff).state == "new"
    with store.unit_of_work() as uow:
        # The takeover is a fresh claim: a concurrent retry now finds it in flight.
        assert uow.idempotency.claim("s", "k", "fp-a", later, exp, cutoff).state == "in_flight"
        uow.idempotency.finish("s", "k", StoredResponse(201, b"{}"))
    with store.unit_of_work() as uow:
        far = later + timedelta(hours=1)
        done = uow.idempotency.claim("s", "k", "fp-a", far, exp, far - timedelta(minutes=10))
        assert done.state == "done"  # a finished answer is never taken over


def test_idempotency_release_frees_the_key(store: Store) -> None:
    exp = T0 + timedelta(hours=24)
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("s", "k", "fp-a", T0, exp).state == "new"
        uow.idempotency.release("s", "k")
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("s", "k", "fp-b", T0, exp).state == "new"


def test_idempotency_expired_key_is_claimed_afresh(store: Store) -> None:
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("s", "k", "fp-a", T0, T0 + timedelta(hours=1)).state == "new"
        uow.idempotency.finish("s", "k", StoredResponse(200, b"old"))
    later = T0 + timedelta(hours=1)  # expiry is inclusive
    with store.unit_of_work() as uow:
        claim = uow.idempotency.claim("s", "k", "fp-b", later, later + timedelta(hours=1))
        assert claim == IdempotencyClaim("new")
    with store.unit_of_work() as uow:
        assert uow.idempotency.claim("s", "k", "fp-b", later, later).state == "in_flight"


# --- jobs ----------------------------------------------------------------------------------


def test_jobs_lease_in_due_order_and_complete(store: Store) -> None:
    with store.unit_of_work() as uow:
        uow.jobs.enqueue(job("j3", T0 + timedelta(minutes=3)))
        uow.jobs.enqueue(job("j1", T0 + timedelta(minutes=1)))
        uow.jobs.enqueue(job("j2", T0 + timedelta(minutes=2)))
        uow.jobs.enqueue(job("j_future", T0 + timedelta(hours=1)))
        uow.jobs.enqueue(job("j_other", T0, queue="sms"))
    now = T0 + timedelta(minutes=5)
    until = now + timedelta(minutes=1)
    with store.unit_of_work() as uow:
        leased = uow.jobs.lease("mail", now, "w1", 2, until)
        assert [j.id for j in leased] == ["j1", "j2"]
        assert leased[0] == Job(
            "j1", "mail", {"to": "j1", "n": [1, 2]}, T0 + timedelta(minutes=1), 1
        )
        assert [j.id for j in uow.jobs.lease("mail", now, "w2", 10, until)] == ["j3"]
        assert uow.jobs.lease("mail", now, "w3", 10, until) == []
    with store.unit_of_work() as uow:
        assert uow.jobs.complete("j1", "w1", now)
        assert not uow.jobs.complete("j1", "w1", now), "already done"
        assert not uow.jobs.complete("j2", "w2", now), "leased by w1, not w2"
        assert uow.jobs.count("mail") == 4
        assert uow.jobs.count("mail", done=True) == 1
        assert uow.jobs.count("mail", done=False) == 3
        assert uow.jobs.count("sms") == 1


def test_jobs_complete_a_leased_batch_in_one_call(store: Store) -> None:
    with store.unit_of_work() as uow:
        for i in range(5):
            uow.jobs.enqueue(job(f"b{i}"))
    now = T0 + timedelta(minutes=1)
    with store.unit_of_work() as uow:
        mine = [j.id for j in uow.jobs.lease("mail", now, "w1", 3, now + timedelta(minutes=1))]
        theirs = [j.id for j in uow.jobs.lease("mail", now, "w2", 3, now + timedelta(minutes=1))]
    with store.unit_of_work() as uow:
        assert uow.jobs.complete_many([], "w1", now) == 0
        assert uow.jobs.complete_many(mine + theirs, "w1", now) == 3  # only w1's own
        assert uow.jobs.complete_many(mine, "w1", now) == 0, "already done"
        assert uow.jobs.count("mail", done=True) == 3
        assert uow.jobs.lease("mail", now, "w3", 10, now + timedelta(minutes=1)) == []


def test_jobs_retry_and_expired_lease(store: Store) -> None:
    with store.unit_of_work() as uow:
        uow.jobs.enqueue(job("j1"))
        uow.jobs.enqueue(job("j2"))
    now = T0 + timedelta(seconds=1)
    with store.unit_of_work() as uow:
        leased = uow.jobs.lease("mail", now, "w1", 10, now + timedelta(minutes=1))
        assert [(j.id, j.attempts) for j in leased] == [("j1", 1), ("j2", 1)]
        assert uow.jobs.retry("j1", "w1", now + timedelta(minutes=10))
        assert not uow.jobs.retry("j2", "someone-else", now)
    with store.unit_of_work() as uow:
        # j1 waits for its new due time; j2 stays leased until its lease runs out.
        assert uow.jobs.lease("mail", now + timedelta(seconds=30), "w2", 10, now) == []
        later = now + timedelta(minutes=10)
        leased = uow.jobs.lease("mail", later, "w2", 10, later + timedelta(minutes=1))
        assert [(j.id, j.attempts) for j in leased] == [("j2", 2), ("j1", 2)]
        assert not uow.jobs.complete("j2", "w1", later), "w1 lost the lease"
        assert uow.jobs.complete("j2", "w2", later)
        assert uow.jobs.count("mail", done=False) == 1


# --- cross-cutting -------------------------------------------------------------------------


def test_timestamps_round_trip_as_aware_utc(store: Store) -> None:
    plus_two = timezone(timedelta(hours=2))
    local = datetime(2025, 6, 30, 23, 59, 58, 999999, tzinfo=plus_two)
    with store.unit_of_work() as uow:
        uow.providers.add(provider("prv_tz", at=local))
    with store.unit_of_work() as uow:
        loaded = uow.providers.get("prv_tz")
    assert loaded is not None
    assert loaded.created_at == local
    assert loaded.created_at.utcoffset() == timedelta(0)
    assert loaded.created_at.hour == 21


def test_unit_of_work_that_raises_leaves_nothing_behind(store: Store) -> None:
    def add_then_fail() -> None:
        with store.unit_of_work() as uow:
            uow.providers.add(provider("prv_gone"))
            uow.merchants.add(merchant("mer_gone", "gone", pid="prv_gone"))
            raise RuntimeError("midway")

    with pytest.raises(RuntimeError, match="midway"):
        add_then_fail()
    with store.unit_of_work() as uow:
        assert uow.providers.get("prv_gone") is None
        assert uow.merchants.get("mer_gone") is None
        assert uow.providers.count() == 0


def test_migrate_is_idempotent_and_reported(store_url: str) -> None:
    store = open_store(store_url)
    try:
        versions = [m.version for m in MIGRATIONS]
        assert [(m.version, m.applied_at) for m in store.migration_status()] == [
            (v, None) for v in versions
        ]
        before = datetime.now(UTC)
        assert store.migrate() == versions
        assert store.migrate() == []
        status = store.migration_status()
        assert [(m.version, m.applied_at is not None) for m in status] == [
            (v, True) for v in versions
        ]
        assert status[0].version == 1
        applied_at = status[0].applied_at
        assert applied_at is not None
        assert applied_at.tzinfo is not None
        assert before - timedelta(seconds=5) <= applied_at <= datetime.now(UTC)
    finally:
        store.close()
    reopened = open_store(store_url)
    try:
        assert reopened.migrate() == []
    finally:
        reopened.close()


def test_store_reopens_after_close(store: Store) -> None:
    with store.unit_of_work() as uow:
        uow.providers.add(provider())
    store.close()
    with store.unit_of_work() as uow:
        assert uow.providers.count() == 1


def test_migrations_are_numbered_one_to_n_without_gaps() -> None:
    """Branches are handed numbers ahead and may land out of order; whoever merges the last
    of them renumbers so that what lands on main runs 1..N in order."""
    from payhub.adapters.storage.migrations import MIGRATIONS

    versions = [m.version for m in MIGRATIONS]
    assert versions == list(range(1, len(versions) + 1))
