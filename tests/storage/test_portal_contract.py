"""The portal's repositories (users, sessions, one-time links) on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta

import pytest

from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict
from payhub.domain.portal import (
    PortalRole,
    PortalSessionRecord,
    PortalTokenRecord,
    PortalUserRecord,
    TokenPurpose,
)
from payhub.ports import Store
from tests.storage.test_contract import T0, merchant, provider


@pytest.fixture
def seeded(store: Store) -> Store:
    with store.unit_of_work() as uow:
        uow.providers.add(provider())
        uow.merchants.add(merchant("mer_1", "acme-42"))
        uow.merchants.add(merchant("mer_2", "other-7"))
    return store


def user(uid: str, email: str, merchant_id: str | None = "mer_1", **kw: object) -> PortalUserRecord:
    fields: dict[str, object] = {
        "id": uid,
        "email": email,
        "display_name": f"User {uid}",
        "role": PortalRole.OWNER if merchant_id else PortalRole.OPERATOR,
        "environment": Environment.SANDBOX,
        "created_at": T0,
        "merchant_id": merchant_id,
        "provider_id": "prv_1" if merchant_id else None,
    }
    fields.update(kw)
    return PortalUserRecord(**fields)  # type: ignore[arg-type]


def test_users_round_trip_every_field(seeded: Store) -> None:
    full = user(
        "pus_1",
        "ann@example.com",
        password_hash="$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
        totp_sealed=b"\x00sealed\xff",
        totp_enabled=True,
        totp_last_step=123456,
        recovery_digests=("d1", "d2"),
        disabled_at=T0 + timedelta(days=1),
        last_sign_in_at=T0 + timedelta(hours=1),
    )
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(full)
        uow.portal_users.add(user("pus_2", "op@example.com", None))
    with seeded.unit_of_work() as uow:
        assert uow.portal_users.get("pus_1") == full
        assert uow.portal_users.get_by_email("ann@example.com") == full
        assert uow.portal_users.get("pus_404") is None
        assert uow.portal_users.get_by_email("nobody@example.com") is None
        assert uow.portal_users.get("pus_2") == user("pus_2", "op@example.com", None)


def test_an_email_belongs_to_one_user(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_1", "ann@example.com"))
    with pytest.raises(Conflict), seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_2", "ann@example.com", "mer_2"))
    with seeded.unit_of_work() as uow:
        assert uow.portal_users.get("pus_2") is None


def test_save_writes_back_the_mutable_fields(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_1", "ann@example.com"))
    changed = user(
        "pus_1",
        "ann@example.com",
        display_name="Ann B",
        role=PortalRole.ADMIN,
        password_hash="h",
        totp_sealed=b"s",
        totp_enabled=True,
        totp_last_step=9,
        recovery_digests=("x",),
        disabled_at=T0,
        last_sign_in_at=T0,
    )
    with seeded.unit_of_work() as uow:
        uow.portal_users.save(changed)
    with seeded.unit_of_work() as uow:
        assert uow.portal_users.get("pus_1") == changed


def test_users_list_by_merchant_operators_and_environment(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_b", "b@example.com"))
        uow.portal_users.add(user("pus_a", "a@example.com"))
        uow.portal_users.add(user("pus_c", "c@example.com", "mer_2"))
        uow.portal_users.add(user("pus_o", "o@example.com", None))
        uow.portal_users.add(
            user("pus_p", "p@example.com", None, environment=Environment.PRODUCTION)
        )
    with seeded.unit_of_work() as uow:
        ids = lambda rows: [u.id for u in rows]  # noqa: E731
        assert ids(uow.portal_users.list(merchant_id="mer_1")) == ["pus_a", "pus_b"]
        assert ids(uow.portal_users.list(merchant_id="mer_2")) == ["pus_c"]
        assert ids(uow.portal_users.list(operators=True)) == ["pus_o", "pus_p"]
        assert ids(uow.portal_users.list(environment=Environment.PRODUCTION)) == ["pus_p"]
        assert len(uow.portal_users.list()) == 5


def _session(digest: str, uid: str = "pus_1", **kw: object) -> PortalSessionRecord:
    fields: dict[str, object] = {
        "digest": digest,
        "user_id": uid,
        "environment": Environment.SANDBOX,
        "created_at": T0,
        "last_seen_at": T0,
        "expires_at": T0 + timedelta(hours=12),
    }
    fields.update(kw)
    return PortalSessionRecord(**fields)  # type: ignore[arg-type]


def test_sessions_add_get_touch_delete(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_1", "ann@example.com"))
        uow.portal_users.add(user("pus_2", "bob@example.com"))
        uow.portal_sessions.add(_session("d1", second_factor_due=True))
        uow.portal_sessions.add(_session("d2"))
        uow.portal_sessions.add(_session("d3", "pus_2"))
    with seeded.unit_of_work() as uow:
        assert uow.portal_sessions.get("d1") == _session("d1", second_factor_due=True)
        assert uow.portal_sessions.get("nope") is None
        uow.portal_sessions.touch("d2", T0 + timedelta(minutes=5))
        uow.portal_sessions.touch("d2", T0 + timedelta(minutes=1))  # never backwards
    with seeded.unit_of_work() as uow:
        seen = uow.portal_sessions.get("d2")
        assert seen is not None
        assert seen.last_seen_at == T0 + timedelta(minutes=5)
        uow.portal_sessions.delete("d2")
        assert uow.portal_sessions.get("d2") is None
        assert uow.portal_sessions.delete_for_user("pus_1") == 1
        assert uow.portal_sessions.get("d1") is None
        assert uow.portal_sessions.get("d3") is not None


def test_sessions_purge_past_their_end(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_1", "ann@example.com"))
        uow.portal_sessions.add(_session("old", expires_at=T0))
        uow.portal_sessions.add(_session("new", expires_at=T0 + timedelta(seconds=1)))
    with seeded.unit_of_work() as uow:
        assert uow.portal_sessions.purge(T0) == 1
        assert uow.portal_sessions.get("old") is None
        assert uow.portal_sessions.get("new") is not None


def _token(digest: str, purpose: TokenPurpose = TokenPurpose.INVITE) -> PortalTokenRecord:
    return PortalTokenRecord(digest, purpose, "pus_1", T0, T0 + timedelta(days=3))


def test_tokens_are_used_once(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_1", "ann@example.com"))
        uow.portal_tokens.add(_token("t1"))
    with seeded.unit_of_work() as uow:
        assert uow.portal_tokens.get("t1", for_update=True) == _token("t1")
        assert uow.portal_tokens.get("t404") is None
        assert uow.portal_tokens.use("t1", T0 + timedelta(minutes=1)) is True
        assert uow.portal_tokens.use("t1", T0 + timedelta(minutes=2)) is False
    with seeded.unit_of_work() as uow:
        used = uow.portal_tokens.get("t1")
        assert used is not None
        assert used.used_at == T0 + timedelta(minutes=1)


def test_revoking_a_users_tokens_spends_only_that_purpose(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.portal_users.add(user("pus_1", "ann@example.com"))
        uow.portal_tokens.add(_token("i1"))
        uow.portal_tokens.add(_token("i2"))
        uow.portal_tokens.add(_token("s1", TokenPurpose.SIGN_IN))
    with seeded.unit_of_work() as uow:
        assert uow.portal_tokens.revoke_for_user("pus_1", TokenPurpose.INVITE, T0) == 2
        assert uow.portal_tokens.revoke_for_user("pus_1", TokenPurpose.INVITE, T0) == 0
    with seeded.unit_of_work() as uow:
        assert uow.portal_tokens.use("i1", T0) is False
        assert uow.portal_tokens.use("s1", T0) is True
