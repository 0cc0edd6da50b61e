"""Storage adapters: SQLite (embedded default) and PostgreSQL, chosen by URL."""

from __future__ import annotations

from payhub.domain.errors import ValidationError
from payhub.ports import Store


def open_store(url: str) -> Store:
    """``sqlite:///path.db`` (or a bare path) or ``postgresql://…``."""
    if url.startswith(("postgres://", "postgresql://")):
        from payhub.adapters.storage.postgres import PostgresStore

        return PostgresStore(url)
    if "://" in url and not url.startswith("sqlite:"):
        raise ValidationError.for_field(
            "database URL",
            f"payhub stores data in SQLite (sqlite:///file.db) or PostgreSQL"
            f" (postgresql://…), not {url.split('://', 1)[0]}://",
        )
    from payhub.adapters.storage.sqlite import SqliteStore

    return SqliteStore.from_url(url)
