"""Accounting integrations: a merchant's connection, what it pushed, and each sync run.

A merchant connects an accounting system only in the admin portal, through the system's own
sign-in (OAuth 2 authorization code for QuickBooks Online). The connection keeps the
company, the environment, the grant's tokens (sealed: ``tokens_sealed`` is SecretBox output
of ``encode_tokens``), the change cursor and the last error. Every object pushed is a
``RemoteLink``: written *before* the create call with its ``request_id`` and no
``remote_id``, completed after it; a run that crashed in between sends the same request id
again and the accounting system answers with the object it already made, so nothing is ever
created twice (QuickBooks Online honours ``requestid`` on writes).

A ``SyncRun`` is one piece of background work (sync now, sync customers, a pull after a
webhook, one pushed object after a domain event): its counts and errors are what the status
endpoint shows as the last sync result.

Status: ``notConnected`` -(portal connect)-> ``connected`` -(disconnect, or the grant revoked
or expired)-> ``disconnected`` (with the reason) -(portal connect)-> ``connected``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any

import attrs

from payhub.domain.addresses import Address
from payhub.domain.catalog import ProductKind
from payhub.domain.errors import PayHubError

RUN_PREFIX = "acr"
# The authorization request's state is good for this long (the merchant is on Intuit's page).
STATE_TTL = timedelta(minutes=15)
# An access token is refreshed this long before Intuit's stated expiry.
ACCESS_SLACK = timedelta(minutes=5)
ERRORS_KEPT = 20
ERROR_TEXT_MAX = 300


class AccountingError(PayHubError):
    """The accounting system refused or failed (502); a sync records it as an error."""

    status = 502
    code = "accounting-error"
    title = "The accounting system refused or failed"


class GrantRevoked(AccountingError):
    """The grant is gone (revoked in the company, refresh token expired): disconnected."""


class AccessExpired(AccountingError):
    """401: the access token is no longer accepted; refresh once and try again."""


class AccountingUnavailable(AccountingError):
    """Throttled (429) or failing (5xx) after the adapter's own retries."""

    def __init__(self, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class AccountingRejected(AccountingError):
    """A request the system refused, with its error code (QuickBooks: ``Fault.Error.code``)."""

    def __init__(self, detail: str, remote_code: str | None = None) -> None:
        super().__init__(detail)
        self.remote_code = remote_code


class AccountingSystem(StrEnum):
    ONLINE = "accounting-online"  # QuickBooks Online


class ConnectionStatus(StrEnum):
    NOT_CONNECTED = "notConnected"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"


class RemoteEnvironment(StrEnum):
    SANDBOX = "sandbox"
    PRODUCTION = "production"


class LinkKind(StrEnum):
    """What a remote id stands for."""

    CUSTOMER = "customer"
    ITEM = "item"  # a product's item
    DEFAULT_ITEM = "default-item"  # the shared item of lines without a product
    INVOICE = "invoice"
    PAYMENT = "payment"  # an invoice payment (local id: the payment's ipy_ id)


class RunKind(StrEnum):
    SYNC_NOW = "sync-now"  # push unsynced customers and invoices, then pull invoice status
    SYNC_CUSTOMERS = "sync-customers"  # pull customers, match, push unsynced
    PULL = "pull"  # pull invoice status only (webhook, background check)
    PUSH = "push"  # one object after a domain event (best effort)
    IMPORT_PRODUCTS = "import-products"  # the company's items become (or link to) products


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # stopped: grant gone, disconnected, or the system kept failing


@attrs.frozen
class Grant:
    """An OAuth grant's tokens. ``refresh_token`` rotates: every refresh answers a new one,
    which replaces the old at once."""

    access_token: str = attrs.field(repr=False)
    refresh_token: str = attrs.field(repr=False)
    access_expires_at: datetime
    refresh_expires_at: datetime | None = None

    def access_fresh(self, now: datetime) -> bool:
        return now + ACCESS_SLACK < self.access_expires_at


def encode_tokens(grant: Grant) -> bytes:
    """The grant as the bytes that are sealed (never stored or logged in the clear)."""
    return json.dumps(
        {
            "a": grant.access_token,
            "r": grant.refresh_token,
            "ae": grant.access_expires_at.isoformat(),
            "re": grant.refresh_expires_at.isoformat() if grant.refresh_expires_at else None,
        },
        separators=(",", ":"),
    ).encode()


def decode_tokens(raw: bytes) -> Grant:
    data = json.loads(raw)
    return Grant(
        data["a"],
        data["r"],
        datetime.fromisoformat(data["ae"]),
        datetime.fromisoformat(data["re"]) if data.get("re") else None,
    )


@attrs.frozen
class CompanyInfo:
    """What payhub learns about the company at connection and on each sync."""

    company_id: str  # QuickBooks Online's realmId
    name: str
    home_currency: str
    automatic_sales_tax: bool = False
    item_categories: bool = False


@attrs.define
class AccountingConnection:
    merchant_id: str
    system: AccountingSystem
    status: ConnectionStatus
    created_at: datetime
    updated_at: datetime
    environment: RemoteEnvironment | None = None
    company_id: str | None = None
    company_name: str | None = None
    home_currency: str | None = None
    automatic_sales_tax: bool = False
    item_categories: bool = False
    status_reason: str | None = None
    tokens_sealed: bytes | None = attrs.field(default=None, repr=False)
    # Change data capture: invoices changed since this moment are pulled next.
    invoice_cursor: datetime | None = None
    # The authorization in progress: a digest of its state (never the state itself).
    state_digest: str | None = None
    state_expires_at: datetime | None = None
    connected_at: datetime | None = None
    disconnected_at: datetime | None = None

    @property
    def connected(self) -> bool:
        return self.status is ConnectionStatus.CONNECTED

    def connect(
        self, company: CompanyInfo, env: RemoteEnvironment, sealed: bytes, at: datetime
    ) -> None:
        self.status = ConnectionStatus.CONNECTED
        self.status_reason = None
        self.environment = env
        self.company_id = company.company_id
        self.company_name = company.name
        self.home_currency = company.home_currency
        self.automatic_sales_tax = company.automatic_sales_tax
        self.item_categories = company.item_categories
        self.tokens_sealed = sealed
        self.state_digest = None
        self.state_expires_at = None
        self.connected_at = at
        self.disconnected_at = None
        self.updated_at = at

    def disconnect(self, reason: str, at: datetime) -> None:
        """Stop syncing at once and forget the grant; the company stays shown."""
        self.status = ConnectionStatus.DISCONNECTED
        self.status_reason = reason
        self.tokens_sealed = None
        self.disconnected_at = at
        self.updated_at = at


def new_connection(
    merchant_id: str, system: AccountingSystem, at: datetime
) -> AccountingConnection:
    return AccountingConnection(merchant_id, system, ConnectionStatus.NOT_CONNECTED, at, at)


def state_digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


@attrs.define
class RemoteLink:
    """A local object and its record in the accounting system."""

    merchant_id: str
    system: AccountingSystem
    kind: LinkKind
    local_id: str
    request_id: str
    created_at: datetime
    updated_at: datetime
    remote_id: str | None = None
    sync_token: str | None = None

    @property
    def done(self) -> bool:
        return self.remote_id is not None


def new_link(
    merchant_id: str,
    kind: LinkKind,
    local_id: str,
    at: datetime,
    remote_id: str | None = None,
    sync_token: str | None = None,
) -> RemoteLink:
    """A link of the online system: pending (no remote id yet, before a create) or found
    (an existing record matched or imported)."""
    return RemoteLink(
        merchant_id,
        AccountingSystem.ONLINE,
        kind,
        local_id,
        request_id_for(merchant_id, kind, local_id),
        at,
        at,
        remote_id,
        sync_token,
    )


def request_id_for(merchant_id: str, kind: LinkKind, local_id: str, attempt: int = 0) -> str:
    """The idempotency key of one create: the same object gives the same key, so a create
    retried after a crash is answered with the record it already made."""
    digest = hashlib.sha256(f"{merchant_id}\n{kind.value}\n{local_id}\n{attempt}".encode())
    return digest.hexdigest()[:36]


@attrs.define
class SyncRun:
    id: str
    merchant_id: str
    system: AccountingSystem
    kind: RunKind
    status: RunStatus
    created_at: datetime
    updated_at: datetime
    counts: dict[str, int] = attrs.field(factory=dict)
    errors: list[str] = attrs.field(factory=list)
    # For PUSH: which object (``customer:cus_…``, ``invoice:INV-000001``).
    subject: str | None = None
    step: str | None = None  # what it is doing now (progress)
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.status in (RunStatus.SUCCEEDED, RunStatus.FAILED)

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def error(self, text: str) -> None:
        """Keep the first ``ERRORS_KEPT`` errors (each cut short); count every one."""
        self.count("errors")
        if len(self.errors) < ERRORS_KEPT:
            self.errors.append(
                text if len(text) <= ERROR_TEXT_MAX else text[: ERROR_TEXT_MAX - 1] + "…"
            )


# --- what goes out, independent of any one system's wire shapes ----------------------------


@attrs.frozen
class OutgoingCustomer:
    display_name: str
    given_name: str | None
    family_name: str | None
    company_name: str | None
    email: str | None
    phone: str | None
    account_number: str | None
    bill_address: Address | None


@attrs.frozen
class OutgoingItem:
    name: str
    kind: ProductKind
    unit_price: Decimal
    sku: str | None
    description: str | None
    taxable: bool
    active: bool
    category_name: str | None = None  # an item category, when the company has them on
    # Inventory items start counting on this day (the clock's date when first pushed).
    inventory_start: date | None = None


@attrs.frozen
class OutgoingLine:
    item_remote_id: str
    description: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal
    taxable: bool


@attrs.frozen
class OutgoingInvoice:
    doc_number: str
    customer_remote_id: str
    txn_date: date
    due_date: date | None
    currency: str
    lines: tuple[OutgoingLine, ...]
    tax_total: Decimal  # the sales-tax line: payhub's own figure, sent as it is
    total: Decimal
    bill_address: Address | None
    ship_address: Address | None
    memo: str | None = None


@attrs.frozen
class OutgoingPayment:
    customer_remote_id: str
    invoice_remote_id: str
    amount: Decimal
    txn_date: date
    reference: str  # payhub's payment id, shown in the accounting system


@attrs.frozen
class RemoteCustomer:
    remote_id: str
    display_name: str
    given_name: str | None
    family_name: str | None
    company_name: str | None
    email: str | None
    phone: str | None
    account_number: str | None
    bill_address: Address | None


@attrs.frozen
class RemoteItem:
    """A sellable item of the company (categories and bundles are not products)."""

    remote_id: str
    sync_token: str | None
    name: str
    kind: ProductKind
    unit_price: Decimal
    sku: str | None
    description: str | None
    taxable: bool


@attrs.frozen
class RemoteInvoiceState:
    """An invoice's status as change data capture reports it."""

    remote_id: str
    balance: Decimal
    total: Decimal
    deleted: bool = False
    tax_total: Decimal | None = None
    updated_at: datetime | None = None


@attrs.frozen
class Pushed:
    """A record the system made or changed: its id and current version (SyncToken)."""

    remote_id: str
    sync_token: str | None
    # What the system computed (automated sales tax may recompute the tax line), and its
    # jurisdictions: (name, percent) per tax line it reports.
    tax_total: Decimal | None = None
    tax_lines: tuple[tuple[str, Decimal | None], ...] = ()


def settled_remotely(state: RemoteInvoiceState) -> bool:
    """Paid there: nothing left due on a live invoice with a positive total."""
    return not state.deleted and state.total > 0 and state.balance <= 0


def counts_json(counts: Mapping[str, int]) -> dict[str, int]:
    return {k: int(v) for k, v in sorted(counts.items())}


def errors_list(errors: Sequence[Any]) -> list[str]:
    return [str(e) for e in errors]


def observed_percent(tax: Decimal, taxable: Decimal) -> Decimal | None:
    """The rate the system applied: its tax over the taxable amount, four decimals, or
    ``None`` when nothing was taxable or the figure is out of the 0-100 range."""
    if taxable <= 0 or tax < 0:
        return None
    percent = (tax * 100 / taxable).quantize(Decimal("0.0001"))
    return percent if percent <= 100 else None
