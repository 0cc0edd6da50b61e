"""Which master key a process uses, and the check that it is the database's own.

A database records the fingerprint of the key its secrets are sealed with (migration 13). A
process configured with another key would seal new secrets that the others cannot open and
fail to open the old ones, so it refuses to start instead, saying which key the database
expects and where it looked. The key file is created only for a new database: an existing
one never gets a second key.

The default key file sits beside the SQLite database (``shop.db`` -> ``shop.key``), so every
command finds it from any folder; for PostgreSQL it is ``$XDG_CONFIG_HOME/payhub/payhub.key``
(``~/.config/…``). ``PAYHUB_SECRET_KEY`` or ``PAYHUB_KEY_FILE`` override it.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from payhub.adapters.secrets import (
    FernetSecretBox,
    SecretKeyError,
    fingerprint,
    load_or_create_keys,
)
from payhub.ports import Store


class MasterKeyMismatch(SecretKeyError):
    """The configured master key is not the one the database was created with."""


def default_key_file(url: str) -> Path:
    """Beside the SQLite file; a per-user file for PostgreSQL (no folder of its own)."""
    if url.startswith(("postgres://", "postgresql://")):
        base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(base) / "payhub" / "payhub.key"
    path = url.removeprefix("sqlite:///").removeprefix("sqlite://") or "payhub.db"
    if path == ":memory:" or path.startswith("file:"):
        return Path("payhub.key").absolute()
    return Path(path).absolute().with_suffix(".key")


def _how_to_fix(key_file: Path) -> str:
    return (
        f"Start it with the key the database was created with: put that key file at {key_file},"
        " or point PAYHUB_KEY_FILE at it, or set PAYHUB_SECRET_KEY to the key. To change the"
        " key, put the new key first and the old one after it (comma-separated): payhub then"
        " records the new one."
    )


def open_master_keys(
    store: Store, key_file: Path, env_value: str | None, now: datetime, *, display: str
) -> list[str]:
    """The keys to use, checked against (or recorded in) the database.

    Raises ``MasterKeyMismatch`` when the database expects another key, or when it already
    holds secrets and no key is configured (instead of creating a second key file).
    """
    with store.unit_of_work(readonly=True) as uow:
        recorded = uow.master_key.fingerprint()
        in_use = recorded is not None or bool(uow.providers.list())
    if not env_value and not key_file.exists() and in_use:
        raise MasterKeyMismatch(
            f"the database {display} already holds secrets sealed with a master key, and no"
            f" key is configured: neither PAYHUB_SECRET_KEY nor the key file {key_file} exists."
            " payhub does not create a new key for an existing database (its secrets and API"
            f" keys could not be opened with it). {_how_to_fix(key_file)}"
        )
    keys, _ = load_or_create_keys(key_file, env_value)
    FernetSecretBox(keys)  # well-formed, before anything is derived from it
    prints = [fingerprint(k) for k in keys]
    source = "PAYHUB_SECRET_KEY" if env_value else f"the key file {key_file}"
    with store.unit_of_work() as uow:
        recorded = uow.master_key.record(prints[0], now)
        if recorded == prints[0]:
            return keys
        if recorded in prints[1:]:  # a rotation: the new key comes first, the old one after
            uow.master_key.replace(prints[0], now)
            return keys
    raise MasterKeyMismatch(
        f"the master key from {source} (fingerprint {prints[0]}) is not the key the database"
        f" {display} was created with (fingerprint {recorded}); with it, the stored secrets and"
        f" API keys cannot be opened. {_how_to_fix(key_file)}"
    )
