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
# An ever-increasing row number (migration 16's events: the order they were recorded in).
_TYPES["sqlite"]["serial"] = "INTEGER PRIMARY KEY AUTOINCREMENT"
_TYPES["postgres"]["serial"] = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
# Migration 14's digest of an idempotency key (SQLite's function is registered per connection).
_TYPES["sqlite"]["key_digest"] = "payhub_sha256_hex(scope || char(10) || key)"
_TYPES["postgres"]["key_digest"] = (
    "encode(sha256(convert_to(scope || chr(10) || key, 'UTF8')), 'hex')"
)


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
    Migration(
        3,
        "customers, SMS consent, saved payment methods, catalog, tax rates, locations, registers",
        # Percentages use the {money} type: an exact decimal with four places.
        # *_key columns hold the case-folded name or SKU that uniqueness and sorting use.
        """
        CREATE TABLE tax_rates (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            percent {money} NOT NULL,
            active {bool} NOT NULL,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE INDEX tax_rates_list ON tax_rates(merchant_id, name_key, id);
        CREATE TABLE tax_settings (
            merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
            default_tax_rate_id TEXT REFERENCES tax_rates(id),
            automatic_sales_tax {bool} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE TABLE observed_tax_rates (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            postal_code TEXT NOT NULL,
            percent {money} NOT NULL,
            jurisdictions {json} NOT NULL,
            confirmed_at {ts} NOT NULL
        );
        CREATE INDEX observed_tax_rates_code
            ON observed_tax_rates(merchant_id, postal_code, confirmed_at);
        CREATE TABLE locations (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            short_code TEXT,
            phone TEXT,
            tax_rate_id TEXT REFERENCES tax_rates(id),
            address_line1 TEXT,
            address_line2 TEXT,
            address_city TEXT,
            address_state TEXT,
            address_postal_code TEXT,
            address_country TEXT,
            active {bool} NOT NULL,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            UNIQUE (merchant_id, short_code)
        );
        CREATE INDEX locations_list ON locations(merchant_id, name_key, id);
        CREATE TABLE location_settings (
            merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
            locations_enabled {bool} NOT NULL,
            default_location_id TEXT REFERENCES locations(id),
            updated_at {ts} NOT NULL
        );
        CREATE TABLE registers (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            location_id TEXT NOT NULL REFERENCES locations(id),
            name TEXT NOT NULL,
            active {bool} NOT NULL,
            created_at {ts} NOT NULL
        );
        CREATE INDEX registers_location ON registers(location_id, active);
        CREATE TABLE product_categories (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            color TEXT,
            sort_order INTEGER NOT NULL,
            active {bool} NOT NULL,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            UNIQUE (merchant_id, name_key)
        );
        CREATE INDEX product_categories_list
            ON product_categories(merchant_id, sort_order, name_key, id);
        CREATE TABLE products (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            sku TEXT,
            sku_key TEXT,
            description TEXT,
            currency TEXT NOT NULL,
            unit_price {money} NOT NULL,
            kind TEXT NOT NULL,
            taxable {bool} NOT NULL,
            category_id TEXT REFERENCES product_categories(id),
            active {bool} NOT NULL,
            accounting_item_ref TEXT,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            UNIQUE (merchant_id, sku_key)
        );
        CREATE INDEX products_list ON products(merchant_id, name_key, id);
        CREATE INDEX products_category ON products(merchant_id, category_id, name_key, id);
        CREATE TABLE customers (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            first_name TEXT,
            last_name TEXT,
            company_name TEXT,
            email TEXT,
            phone TEXT,
            website TEXT,
            billing_line1 TEXT,
            billing_line2 TEXT,
            billing_city TEXT,
            billing_state TEXT,
            billing_postal_code TEXT,
            billing_country TEXT,
            account_number TEXT,
            location_id TEXT REFERENCES locations(id),
            sms_consent {bool} NOT NULL,
            sms_consent_phone TEXT,
            sms_consent_source TEXT,
            sms_consent_at {ts},
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            UNIQUE (merchant_id, account_number)
        );
        CREATE INDEX customers_list ON customers(merchant_id, created_at, id);
        CREATE TABLE sms_consent_records (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            customer_id TEXT NOT NULL REFERENCES customers(id),
            consent {bool} NOT NULL,
            phone TEXT,
            source TEXT NOT NULL,
            recorded_by TEXT NOT NULL,
            reason TEXT,
            recorded_at {ts} NOT NULL
        );
        CREATE INDEX sms_consent_records_customer
            ON sms_consent_records(customer_id, recorded_at, id);
        CREATE TABLE customer_gateway_refs (
            customer_id TEXT NOT NULL REFERENCES customers(id),
            gateway TEXT NOT NULL,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            gateway_customer_ref TEXT NOT NULL,
            created_at {ts} NOT NULL,
            PRIMARY KEY (customer_id, gateway)
        );
        CREATE TABLE saved_payment_methods (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            customer_id TEXT NOT NULL REFERENCES customers(id),
            gateway TEXT NOT NULL,
            method_type TEXT NOT NULL,
            method_ref TEXT NOT NULL,
            gateway_customer_ref TEXT NOT NULL,
            brand TEXT,
            last4 TEXT,
            exp_month INTEGER,
            exp_year INTEGER,
            bank_name TEXT,
            created_at {ts} NOT NULL,
            removed_at {ts}
        );
        CREATE INDEX saved_payment_methods_customer
            ON saved_payment_methods(customer_id, created_at, id)
        """,
    ),
    Migration(
        4,
        "short links: links, daily open counters, settings, blocklist, switches, API usage",
        # Opens are counted per link and UTC day (day is 'YYYY-MM-DD' text in both dialects),
        # never one row per click. Creation limits count short_links rows by their
        # (merchant_id, created_at) and (provider_id, created_at) indexes.
        """
        CREATE TABLE short_links (
            id TEXT PRIMARY KEY,
            code TEXT NOT NULL UNIQUE,
            provider_id TEXT NOT NULL REFERENCES providers(id),
            merchant_id TEXT REFERENCES merchants(id),
            environment TEXT NOT NULL,
            target_url TEXT NOT NULL,
            target_host TEXT NOT NULL,
            purpose TEXT,
            label TEXT,
            client_reference TEXT,
            created_at {ts} NOT NULL,
            created_by TEXT NOT NULL,
            expires_at {ts},
            revoked_at {ts},
            revoke_reason TEXT
        );
        CREATE INDEX short_links_provider ON short_links(provider_id, created_at);
        CREATE INDEX short_links_merchant ON short_links(merchant_id, created_at);
        CREATE INDEX short_links_client_reference
            ON short_links(provider_id, client_reference) WHERE client_reference IS NOT NULL;
        CREATE INDEX short_links_target_host ON short_links(target_host);
        CREATE TABLE short_link_clicks (
            link_id TEXT NOT NULL REFERENCES short_links(id),
            day TEXT NOT NULL,
            opens BIGINT NOT NULL,
            last_at {ts} NOT NULL,
            PRIMARY KEY (link_id, day)
        );
        CREATE TABLE service_settings (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE TABLE blocked_domains (
            domain TEXT PRIMARY KEY,
            reason TEXT,
            created_at {ts} NOT NULL
        );
        CREATE TABLE short_link_switches (
            owner_id TEXT PRIMARY KEY,
            enabled {bool} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE TABLE merchant_api_requests (
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            day TEXT NOT NULL,
            requests BIGINT NOT NULL,
            PRIMARY KEY (merchant_id, day)
        )
        """,
    ),
    Migration(
        5,
        "merchant time zone: texting hours and schedule cadences run in it",
        """
        ALTER TABLE merchants ADD COLUMN time_zone TEXT
        """,
    ),
    Migration(
        6,
        "invoices: invoices, lines, payments, per-merchant invoice settings",
        # (merchant_id, number) is unique: the last guard against a repeated number. One
        # transaction counts once towards an invoice (invoice_payments.transaction_id).
        """
        CREATE TABLE invoices (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            number TEXT NOT NULL,
            pay_token TEXT NOT NULL UNIQUE,
            customer_id TEXT REFERENCES customers(id),
            currency TEXT NOT NULL,
            description TEXT,
            tax_rate_id TEXT,
            tax_percent {money} NOT NULL,
            subtotal {money} NOT NULL,
            tax {money} NOT NULL,
            total {money} NOT NULL,
            amount_paid {money} NOT NULL,
            due_date TEXT,
            gateway TEXT NOT NULL,
            allowed_methods TEXT NOT NULL,
            partial_mode TEXT NOT NULL,
            deposit {money},
            authorize_only {bool} NOT NULL,
            bill_to {json},
            ship_to {json},
            location_id TEXT,
            status TEXT NOT NULL,
            reserved_amount {money},
            reserved_attempt TEXT,
            reserved_at {ts},
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            sent_at {ts},
            paid_at {ts},
            voided_at {ts},
            UNIQUE (merchant_id, number)
        );
        CREATE INDEX invoices_merchant ON invoices(merchant_id, created_at, number);
        CREATE INDEX invoices_customer ON invoices(merchant_id, customer_id, created_at, number);
        CREATE TABLE invoice_lines (
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            position INTEGER NOT NULL,
            description TEXT NOT NULL,
            quantity {money} NOT NULL,
            unit_price {money} NOT NULL,
            amount {money} NOT NULL,
            tax {money} NOT NULL,
            is_taxable {bool} NOT NULL,
            product_id TEXT,
            PRIMARY KEY (invoice_id, position)
        );
        CREATE TABLE invoice_payments (
            id TEXT PRIMARY KEY,
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            position INTEGER NOT NULL,
            transaction_id TEXT NOT NULL UNIQUE,
            amount {money} NOT NULL,
            method_type TEXT NOT NULL,
            status TEXT NOT NULL,
            source TEXT NOT NULL,
            created_at {ts} NOT NULL,
            UNIQUE (invoice_id, position)
        );
        CREATE TABLE invoice_settings (
            merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
            number_format TEXT,
            starting_number BIGINT NOT NULL,
            generation INTEGER NOT NULL,
            embed_origins {json} NOT NULL,
            updated_at {ts} NOT NULL
        )
        """,
    ),
    Migration(
        7,
        "messaging: the outbox of texts and emails, text-kind switches, STOP blocks",
        # job_id names the one worker job allowed to deliver a message, so a stale duplicate
        # job does nothing. sms_blocks is keyed by number alone: one sending number serves
        # every merchant, and a STOP to it stops them all (as the SMS provider does).
        """
        CREATE TABLE messages (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            customer_id TEXT REFERENCES customers(id),
            channel TEXT NOT NULL,
            kind TEXT NOT NULL,
            to_address TEXT NOT NULL,
            subject TEXT,
            body TEXT NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            attempts INTEGER NOT NULL,
            send_after {ts},
            sent_at {ts},
            provider TEXT,
            provider_message_id TEXT,
            last_error TEXT,
            job_id TEXT,
            attempt_started_at {ts},
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE INDEX messages_merchant ON messages(merchant_id, created_at, id);
        CREATE INDEX messages_customer ON messages(customer_id, created_at, id);
        CREATE INDEX messages_to ON messages(to_address, sent_at);
        CREATE INDEX messages_created ON messages(created_at, id);
        CREATE TABLE texting_kinds (
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            kind TEXT NOT NULL,
            enabled {bool} NOT NULL,
            updated_at {ts} NOT NULL,
            PRIMARY KEY (merchant_id, kind)
        );
        CREATE TABLE sms_blocks (
            phone TEXT PRIMARY KEY,
            blocked {bool} NOT NULL,
            keyword TEXT NOT NULL,
            provider_message_id TEXT NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE INDEX customers_phone ON customers(phone);
        CREATE INDEX customers_consent_phone ON customers(sms_consent_phone)
        """,
    ),
    Migration(
        8,
        "scheduled payments: schedules, one row per run attempt, schedule requests, approval forms",
        # A run attempt is unique per (schedule, trigger, run number, attempt): its gateway key
        # is derived from those, so a restart finds the row and settles the same charge.
        """
        CREATE TABLE scheduled_payments (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            customer_id TEXT NOT NULL REFERENCES customers(id),
            payment_method_id TEXT NOT NULL REFERENCES saved_payment_methods(id),
            gateway TEXT NOT NULL,
            method_type TEXT NOT NULL,
            kind TEXT NOT NULL,
            cadence TEXT,
            anchor_local TEXT NOT NULL,
            time_zone TEXT NOT NULL,
            end_date TEXT,
            max_charges INTEGER,
            currency TEXT NOT NULL,
            amount {money},
            lines {json} NOT NULL,
            tax_rate_id TEXT,
            tax_percent TEXT,
            bill_to {json},
            ship_to {json},
            description TEXT,
            status TEXT NOT NULL,
            next_run_number INTEGER NOT NULL,
            next_run_at {ts},
            next_attempt INTEGER NOT NULL,
            failures INTEGER NOT NULL,
            charges INTEGER NOT NULL,
            manual_runs INTEGER NOT NULL,
            plan_version INTEGER NOT NULL,
            last_failure TEXT,
            invoice_number TEXT,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE INDEX scheduled_payments_list ON scheduled_payments(merchant_id, created_at, id);
        CREATE INDEX scheduled_payments_due ON scheduled_payments(status, next_run_at);
        CREATE TABLE schedule_runs (
            id TEXT PRIMARY KEY,
            schedule_id TEXT NOT NULL REFERENCES scheduled_payments(id),
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            run_trigger TEXT NOT NULL,
            run_number INTEGER NOT NULL,
            attempt INTEGER NOT NULL,
            scheduled_for {ts} NOT NULL,
            started_at {ts} NOT NULL,
            gateway_key TEXT NOT NULL,
            currency TEXT NOT NULL,
            amount {money} NOT NULL,
            outcome TEXT NOT NULL,
            transaction_id TEXT,
            invoice_number TEXT,
            failure TEXT,
            finished_at {ts},
            UNIQUE (schedule_id, run_trigger, run_number, attempt)
        );
        CREATE INDEX schedule_runs_schedule ON schedule_runs(schedule_id, started_at, id);
        CREATE TABLE schedule_requests (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            customer_id TEXT NOT NULL REFERENCES customers(id),
            gateway TEXT NOT NULL,
            kind TEXT NOT NULL,
            cadence TEXT,
            first_run_at {ts} NOT NULL,
            end_date TEXT,
            max_charges INTEGER,
            currency TEXT NOT NULL,
            amount {money},
            lines {json} NOT NULL,
            tax_rate_id TEXT,
            tax_percent TEXT,
            bill_to {json},
            ship_to {json},
            description TEXT,
            invoice_id TEXT,
            invoice_number TEXT,
            token TEXT NOT NULL UNIQUE,
            status TEXT NOT NULL,
            schedule_id TEXT,
            approved_at {ts},
            cancelled_at {ts},
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL
        );
        CREATE INDEX schedule_requests_list ON schedule_requests(merchant_id, created_at, id);
        CREATE TABLE approval_forms (
            nonce TEXT PRIMARY KEY,
            request_id TEXT NOT NULL REFERENCES schedule_requests(id),
            issued_at {ts} NOT NULL,
            used_at {ts}
        )
        """,
    ),
    Migration(
        9,
        "dead jobs: a job the worker gave up on keeps its last error and can be revived",
        """
        ALTER TABLE jobs ADD COLUMN last_error TEXT;
        ALTER TABLE jobs ADD COLUMN dead_at {ts};
        CREATE INDEX jobs_dead ON jobs(dead_at) WHERE dead_at IS NOT NULL
        """,
    ),
    Migration(
        10,
        "delivery reports: a text's final carrier state, found by the provider's message id",
        """
        ALTER TABLE messages ADD COLUMN delivery_reported_at {ts};
        ALTER TABLE messages ADD COLUMN provider_error_code TEXT;
        CREATE INDEX messages_provider_id ON messages(provider_message_id)
        """,
    ),
    Migration(
        11,
        "gateway public fields: publishable keys and the like for the pages' hosted fields",
        """
        CREATE TABLE gateway_public_fields (
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            gateway TEXT NOT NULL,
            fields {json} NOT NULL,
            updated_at {ts} NOT NULL,
            PRIMARY KEY (merchant_id, gateway)
        )
        """,
    ),
    Migration(
        12,
        "invoices settled outside payhub: payments without a transaction, keyed by source",
        # SQLite cannot drop NOT NULL, so the table is rebuilt (same SQL on both stores).
        # external_key is merchant|source|system|reference: one invoice per outside record.
        """
        CREATE TABLE invoice_payments_v12 (
            id TEXT PRIMARY KEY,
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            position INTEGER NOT NULL,
            transaction_id TEXT UNIQUE,
            amount {money} NOT NULL,
            method_type TEXT,
            status TEXT NOT NULL,
            source TEXT NOT NULL,
            created_at {ts} NOT NULL,
            external_system TEXT,
            external_reference TEXT,
            external_key TEXT UNIQUE,
            UNIQUE (invoice_id, position)
        );
        INSERT INTO invoice_payments_v12 (id, invoice_id, position, transaction_id, amount,
            method_type, status, source, created_at)
        SELECT id, invoice_id, position, transaction_id, amount, method_type, status, source,
            created_at FROM invoice_payments;
        DROP TABLE invoice_payments;
        ALTER TABLE invoice_payments_v12 RENAME TO invoice_payments
        """,
    ),
    Migration(
        13,
        "the master key's fingerprint: a process with another key refuses to start",
        # One row. The fingerprint is derived from the key (HKDF), never the key itself.
        """
        CREATE TABLE master_key (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            fingerprint TEXT NOT NULL,
            recorded_at {ts} NOT NULL
        )
        """,
    ),
    Migration(
        14,
        "idempotency keys stored as digests of scope and key, claims held by a renewed lease",
        # {key_digest} is SHA-256 of scope, a newline and the key, in hex, as
        # payhub.services.idempotency.key_digest computes it.
        """
        ALTER TABLE idempotency_keys ADD COLUMN renewed_at {ts};
        UPDATE idempotency_keys SET key = {key_digest}
        """,
    ),
    Migration(
        15,
        "the card brand and last four (or the bank's last four) of each charge, for receipts",
        """
        ALTER TABLE transactions ADD COLUMN method_brand TEXT;
        ALTER TABLE transactions ADD COLUMN method_last4 TEXT
        """,
    ),
    Migration(
        16,
        "domain events: recorded with the change that caused them, read by GET /api/events",
        # seq orders events as recorded (newest first lists, in order per object); data and
        # details are JSON with money as exact numbers. Messages name the event that queued
        # them (emailQueued of an invoice send reads it).
        """
        CREATE TABLE events (
            seq {serial},
            id TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            provider_id TEXT NOT NULL REFERENCES providers(id),
            merchant_id TEXT REFERENCES merchants(id),
            object_type TEXT NOT NULL,
            object_id TEXT NOT NULL,
            data {json} NOT NULL,
            details {json} NOT NULL,
            created_at {ts} NOT NULL
        );
        CREATE INDEX events_provider ON events(provider_id, seq);
        CREATE INDEX events_merchant ON events(merchant_id, seq);
        CREATE INDEX events_object ON events(object_id, seq);
        CREATE INDEX events_created ON events(created_at);
        ALTER TABLE messages ADD COLUMN event_id TEXT;
        CREATE INDEX messages_event ON messages(event_id) WHERE event_id IS NOT NULL
        """,
    ),
    Migration(
        17,
        "webhook endpoints, their deliveries in order per object, and the attempt log",
        # Secrets are sealed (SecretBox). A delivery's body is the exact signed JSON; an
        # attempt keeps the status, duration and error only, never a body or a header.
        """
        CREATE TABLE webhook_endpoints (
            id TEXT PRIMARY KEY,
            provider_id TEXT NOT NULL REFERENCES providers(id),
            merchant_id TEXT REFERENCES merchants(id),
            url TEXT NOT NULL,
            event_types {json} NOT NULL,
            description TEXT,
            alert_email TEXT,
            enabled {bool} NOT NULL,
            disabled_reason TEXT,
            secret_sealed {blob} NOT NULL,
            previous_secret_sealed {blob},
            previous_secret_expires_at {ts},
            failing_since {ts},
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            deleted_at {ts}
        );
        CREATE INDEX webhook_endpoints_provider ON webhook_endpoints(provider_id, created_at, id);
        CREATE TABLE webhook_deliveries (
            id TEXT PRIMARY KEY,
            endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
            provider_id TEXT NOT NULL REFERENCES providers(id),
            merchant_id TEXT,
            event_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            object_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            job_id TEXT,
            next_attempt_at {ts},
            attempt_started_at {ts},
            last_status_code INTEGER,
            last_error TEXT,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            finished_at {ts},
            UNIQUE (endpoint_id, object_id, seq)
        );
        CREATE INDEX webhook_deliveries_open ON webhook_deliveries(endpoint_id, object_id, seq)
            WHERE status IN ('waiting', 'pending');
        CREATE INDEX webhook_deliveries_event ON webhook_deliveries(provider_id, event_id);
        CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(finished_at)
            WHERE finished_at IS NOT NULL;
        CREATE TABLE webhook_attempts (
            id TEXT PRIMARY KEY,
            delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
            endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
            event_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            started_at {ts} NOT NULL,
            duration_ms INTEGER NOT NULL,
            status_code INTEGER,
            error TEXT,
            outcome TEXT NOT NULL,
            next_attempt_at {ts}
        );
        CREATE INDEX webhook_attempts_log ON webhook_attempts(endpoint_id, started_at, id);
        CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id)
        """,
    ),
    Migration(
        18,
        "the admin portal: its users, their sessions and one-time links (invites, sign-in)",
        # Session ids, link tokens and recovery codes are stored as HMAC digests, passwords as
        # argon2id hashes, TOTP seeds sealed; nothing here opens a session by itself.
        """
        CREATE TABLE portal_users (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            display_name TEXT NOT NULL,
            role TEXT NOT NULL,
            environment TEXT NOT NULL,
            merchant_id TEXT REFERENCES merchants(id),
            provider_id TEXT REFERENCES providers(id),
            password_hash TEXT,
            totp_sealed {blob},
            totp_enabled {bool} NOT NULL,
            totp_last_step INTEGER NOT NULL,
            recovery_digests {json} NOT NULL,
            created_at {ts} NOT NULL,
            disabled_at {ts},
            last_sign_in_at {ts}
        );
        CREATE INDEX portal_users_merchant ON portal_users(merchant_id);
        CREATE TABLE portal_sessions (
            digest TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES portal_users(id),
            environment TEXT NOT NULL,
            second_factor_due {bool} NOT NULL,
            created_at {ts} NOT NULL,
            last_seen_at {ts} NOT NULL,
            expires_at {ts} NOT NULL
        );
        CREATE INDEX portal_sessions_user ON portal_sessions(user_id);
        CREATE INDEX portal_sessions_expiry ON portal_sessions(expires_at);
        CREATE TABLE portal_tokens (
            digest TEXT PRIMARY KEY,
            purpose TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES portal_users(id),
            created_at {ts} NOT NULL,
            expires_at {ts} NOT NULL,
            used_at {ts}
        );
        CREATE INDEX portal_tokens_user ON portal_tokens(user_id, purpose)
        """,
    ),
    Migration(
        19,
        "gateway notifications: each credential's notification URL token, and transactions"
        " found by the gateway's reference",
        # The token is the last segment of /webhooks/gateways/{gateway}/{token} (Adyen posts its
        # outcomes there); the index finds the transaction a notification names.
        """
        ALTER TABLE gateway_credentials ADD COLUMN notification_token TEXT;
        CREATE UNIQUE INDEX gateway_credentials_notification
            ON gateway_credentials(notification_token);
        CREATE INDEX transactions_gateway_reference
            ON transactions(merchant_id, gateway, gateway_reference)
        """,
    ),
    Migration(
        20,
        "merchant profiles: business name, contact details, address and logo (the portal)",
        """
        CREATE TABLE merchant_profiles (
            merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
            business_name TEXT,
            contact_email TEXT,
            phone TEXT,
            address_line1 TEXT,
            address_line2 TEXT,
            address_city TEXT,
            address_state TEXT,
            address_postal_code TEXT,
            address_country TEXT,
            logo_type TEXT,
            logo {blob},
            updated_at {ts} NOT NULL
        )
        """,
    ),
    Migration(
        21,
        "debit authorizations: the payer's acceptance of a bank debit on the pay page",
        # One row per transaction: the words accepted (with the amount), when, and the
        # address and browser the acceptance came from (NACHA WEB authorization evidence).
        """
        CREATE TABLE debit_authorizations (
            transaction_id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            text TEXT NOT NULL,
            accepted_at {ts} NOT NULL,
            ip_address TEXT,
            user_agent TEXT
        );
        CREATE INDEX debit_authorizations_invoice ON debit_authorizations(invoice_id)
        """,
    ),
    Migration(
        22,
        "accounting integrations: connections, remote ids of pushed objects, sync runs",
        # Tokens are sealed by the SecretBox as gateway credentials are; the OAuth state is
        # kept as a digest. A link row is written before the create call (request id, no
        # remote id) and completed after it, so a crashed run never creates twice.
        """
        CREATE TABLE accounting_connections (
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            system TEXT NOT NULL,
            status TEXT NOT NULL,
            status_reason TEXT,
            environment TEXT,
            company_id TEXT,
            company_name TEXT,
            home_currency TEXT,
            automatic_sales_tax {bool} NOT NULL,
            item_categories {bool} NOT NULL,
            tokens_sealed {blob},
            invoice_cursor {ts},
            state_digest TEXT,
            state_expires_at {ts},
            connected_at {ts},
            disconnected_at {ts},
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            PRIMARY KEY (merchant_id, system)
        );
        CREATE INDEX accounting_connections_company ON accounting_connections(system, company_id);
        CREATE UNIQUE INDEX accounting_connections_state ON accounting_connections(state_digest)
            WHERE state_digest IS NOT NULL;
        CREATE TABLE accounting_links (
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            system TEXT NOT NULL,
            kind TEXT NOT NULL,
            local_id TEXT NOT NULL,
            request_id TEXT NOT NULL,
            remote_id TEXT,
            sync_token TEXT,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            PRIMARY KEY (merchant_id, system, kind, local_id)
        );
        CREATE UNIQUE INDEX accounting_links_remote
            ON accounting_links(merchant_id, system, kind, remote_id) WHERE remote_id IS NOT NULL;
        CREATE TABLE accounting_runs (
            id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL REFERENCES merchants(id),
            system TEXT NOT NULL,
            kind TEXT NOT NULL,
            status TEXT NOT NULL,
            subject TEXT,
            step TEXT,
            counts {json} NOT NULL,
            errors {json} NOT NULL,
            created_at {ts} NOT NULL,
            updated_at {ts} NOT NULL,
            started_at {ts},
            finished_at {ts}
        );
        CREATE INDEX accounting_runs_latest ON accounting_runs(merchant_id, system, created_at)
        """,
    ),
)
