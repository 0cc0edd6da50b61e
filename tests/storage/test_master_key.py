"""The master key cannot change silently: the database records its fingerprint (both stores)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from payhub import Environment, PayHub
from payhub.adapters.master_key import MasterKeyMismatch, default_key_file
from payhub.adapters.secrets import fingerprint
from payhub.adapters.storage import open_store
from payhub.ports import Store

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_the_repository_records_once_and_replaces_on_request(store: Store) -> None:
    with store.unit_of_work() as uow:
        assert uow.master_key.fingerprint() is None
        assert uow.master_key.record("aaaa", NOW) == "aaaa"
        assert uow.master_key.record("bbbb", NOW) == "aaaa"  # the first one stays
    with store.unit_of_work() as uow:
        uow.master_key.replace("cccc", NOW)
    with store.unit_of_work(readonly=True) as uow:
        assert uow.master_key.fingerprint() == "cccc"


def test_the_fingerprint_names_the_key_without_revealing_it() -> None:
    key = Fernet.generate_key().decode()
    assert fingerprint(key) == fingerprint(key + "\n")
    assert fingerprint(key) != fingerprint(Fernet.generate_key().decode())
    assert len(fingerprint(key)) == 16
    assert fingerprint(key) not in key


def _fingerprint_in(url: str) -> str | None:
    store = open_store(url)
    try:
        with store.unit_of_work(readonly=True) as uow:
            return uow.master_key.fingerprint()
    finally:
        store.close()


def test_a_database_refuses_another_key_and_says_how_to_fix_it(store_url: str) -> None:
    first, other = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    PayHub.open(store_url, secret_key=first).close()
    assert _fingerprint_in(store_url) == fingerprint(first)

    with pytest.raises(MasterKeyMismatch) as refused:
        PayHub.open(store_url, secret_key=other)
    message = str(refused.value)
    assert fingerprint(other) in message
    assert fingerprint(first) in message
    assert "PAYHUB_SECRET_KEY" in message
    assert "PAYHUB_KEY_FILE" in message
    assert first not in message
    assert other not in message
    assert _fingerprint_in(store_url) == fingerprint(first)  # nothing changed

    PayHub.open(store_url, secret_key=first).close()  # the right key still opens it


def test_a_rotation_puts_the_new_key_first_and_records_it(store_url: str) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    hub = PayHub.open(store_url, secret_key=old)
    hub.operators.create_provider("Acme", Environment.SANDBOX)
    hub.close()

    hub = PayHub.open(store_url, secret_key=f"{new},{old}")
    hub.close()
    assert _fingerprint_in(store_url) == fingerprint(new)
    with pytest.raises(MasterKeyMismatch):  # the old key alone is no longer the database's
        PayHub.open(store_url, secret_key=old)
    PayHub.open(store_url, secret_key=f"{new},{old}").close()


def test_an_existing_database_never_gets_a_second_key_file(tmp_path: Path, store_url: str) -> None:
    key_file = tmp_path / "first.key"
    PayHub.open(store_url, key_file=key_file).close()
    assert key_file.exists()

    elsewhere = tmp_path / "elsewhere" / "payhub.key"
    with pytest.raises(MasterKeyMismatch) as refused:
        PayHub.open(store_url, key_file=elsewhere)
    assert str(elsewhere) in str(refused.value)
    assert "does not create a new key" in str(refused.value)
    assert not elsewhere.exists()


def test_a_database_from_before_the_fingerprint_is_not_given_a_new_key(
    tmp_path: Path, store_url: str
) -> None:
    """A database with providers but no recorded fingerprint (made before migration 13)."""
    key_file = tmp_path / "k"
    hub = PayHub.open(store_url, key_file=key_file)
    hub.operators.bootstrap()
    with hub.store.unit_of_work() as uow:
        uow.master_key.db.execute("DELETE FROM master_key", {})  # type: ignore[attr-defined]
    hub.close()
    assert _fingerprint_in(store_url) is None

    with pytest.raises(MasterKeyMismatch):
        PayHub.open(store_url, key_file=tmp_path / "new.key")
    assert not (tmp_path / "new.key").exists()
    PayHub.open(store_url, key_file=key_file).close()  # its own key: recorded now
    assert _fingerprint_in(store_url) == fingerprint(key_file.read_text())


def test_the_default_key_file_lives_beside_the_sqlite_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PAYHUB_KEY_FILE", raising=False)
    monkeypatch.delenv("PAYHUB_SECRET_KEY", raising=False)
    (tmp_path / "data").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    url = f"sqlite:///{tmp_path / 'data' / 'shop.db'}"
    assert default_key_file(url) == tmp_path / "data" / "shop.key"
    monkeypatch.chdir(tmp_path / "a")
    PayHub.open(url).close()
    monkeypatch.chdir(tmp_path / "b")
    PayHub.open(url).close()  # the same key from another folder
    assert sorted(p.name for p in (tmp_path / "data").iterdir() if p.suffix == ".key") == [
        "shop.key"
    ]
    assert os.listdir(tmp_path / "a") == []
    assert os.listdir(tmp_path / "b") == []
    relative = "sqlite:///shop.db"
    assert default_key_file(relative) == (tmp_path / "b" / "shop.key")
