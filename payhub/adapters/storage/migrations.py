"""The numbered schema migrations, one list for both dialects.

Each migration is SQL with a few type tokens, so SQLite and PostgreSQL read the same
list: ``{ts}`` a UTC timestamp, ``{bool}``, ``{blob}``, ``{money}`` an exact decimal,
``{json}`` a JSON document. Never edit a migration that has shipped; add the next one.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Migration:
    version: int
    name: str
    sql: str


_TYPES = {
    "sqlite": {"ts": "TEXT", "bool": "INTEGER", "blob": "BLOB", "money": "TEXT", "json": "TEXT"},
    "postgres": {
        "ts": "TIMESTAMPTZ",
        "bool": "BOOLEAN",
        "blob": "BYTEA",
        "money": "NUMERIC(20,4)",
        "json": "TEXT",
    },
}


def render(migration: Migration, dialect: str) -> list[str]:
    """The migration's statements for one dialect."""
    sql = migration.sql.format(**_TYPES[dialect])
    return [s.strip() for s in sql.split(";") if s.strip()]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "foundation: providers, keys, merchants, credentials, sequences, idempotency, jobs",
        """
        CREATE TABLE providers (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            environment TEXT NOT NULL,
            created_at {ts} NOT NULL
        );
        CREATE TABLE merchants (
            id TEXT PRIMARY KEY,
            provider_id TEXT NOT NULL REFERENCES providers(id),
            external_reference TEXT NOT NULL,
            display_name TEXT NOT NULL,
            created_at {ts} NOT NULL,
            UNIQUE (provider_id, external_reference)
        );
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            key_id TEXT NOT NULL UNIQUE,
            provider_id TEXT NOT NULL REFERENCES providers(id),
            merchant_id TEXT REFERENCES merchants(id),
            kind TEXT NOT NULL,
            environment TEXT NOT NULL,
            digest TEXT NOT NULL,
            hint TEXT NOT NULL,
            label TEXT NOT NULL,
            created_at {ts} NOT NULL,
            revoked_at {ts}
        );
        CREATE INDEX api_keys_provider ON api_keys(provider_id);
        CREATE TABLE gateway_credentials (
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            gateway TEXT NOT NULL,
            environment TEXT NOT NULL,
            enabled {bool} NOT NULL,
            sealed {blob} NOT NULL,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            PRIMARY KEY (merchant_id, gateway)
        );
        CREATE TABLE sequences (
            name TEXT PRIMARY KEY,
            value BIGINT NOT NULL
        );
        CREATE TABLE idempotency_keys (
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            state TEXT NOT NULL,
            status INTEGER,
            body {blob},
            created_at {ts} NOT NULL,
            expires_at {ts} NOT NULL,
            PRIMARY KEY (scope, key)
        );
        CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY,
            queue TEXT NOT NULL,
            payload {json} NOT NULL,
            due_at {ts} NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            lease_owner TEXT,
            leased_until {ts},
            done_at {ts}
        );
        CREATE INDEX jobs_due ON jobs(queue, due_at) WHERE done_at IS NULL
        """,
    ),
    Migration(
        2,
        "payments: transactions and their ledger of gateway attempts",
        """
        CREATE TABLE transactions (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            gateway TEXT NOT NULL,
            method_type TEXT NOT NULL,
            currency TEXT NOT NULL,
            amount {money} NOT NULL,
            captured {money} NOT NULL,
            refunded {money} NOT NULL,
            status TEXT NOT NULL,
            gateway_reference TEXT,
            location_id TEXT,
            customer_id TEXT,
            payment_method_id TEXT,
            gateway_key TEXT NOT NULL,
            decline_code TEXT,
            failure_message TEXT,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE INDEX transactions_merchant ON transactions(merchant_id, created_at);
        CREATE UNIQUE INDEX transactions_gateway_key ON transactions(merchant_id, gateway_key);
        CREATE TABLE transaction_events (
            id TEXT PRIMARY KEY,
            transaction_id TEXT NOT NULL REFERENCES transactions(id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            outcome TEXT NOT NULL,
            amount {money},
            gateway_reference TEXT,
            decline_code TEXT,
            message TEXT,
            support {json} NOT NULL,
            created_at {ts} NOT NULL
        );
        CREATE UNIQUE INDEX transaction_events_tx ON transaction_events(transaction_id, seq)
        """,
    ),
)
