"""Storage adapters: SQLite (embedded default) and PostgreSQL, chosen by URL."""

from __future__ import annotations

from payhub.ports import Store


def open_store(url: str) -> Store:
    """``sqlite:///path.db`` (or a bare path) or ``postgresql://…``."""
    if url.startswith(("postgres://", "postgresql://")):
        from payhub.adapters.storage.postgres import PostgresStore

        return PostgresStore(url)
    from payhub.adapters.storage.sqlite import SqliteStore

    return SqliteStore.from_url(url)
