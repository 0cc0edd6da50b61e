"""Ports: what the core needs from the outside world, as ``typing.Protocol``s.

Adapters in ``payhub.adapters`` implement these; services receive them through
``payhub.hub.PayHub``. Nothing here does I/O itself.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

import attrs

from payhub.domain.accounts import ApiKey, GatewayCredential, Merchant, Provider
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayResult,
    SavedMethod,
    SaveMethodRequest,
    Transaction,
    TransactionEvent,
)


class Clock(Protocol):
    """The only source of "now" in payhub; always timezone-aware UTC."""

    def now(self) -> datetime: ...


class Randomness(Protocol):
    """Random bytes for ids, keys and page tokens (a seeded fake makes tests repeatable)."""

    def token_bytes(self, n: int) -> bytes: ...


class SecretBox(Protocol):
    """Encrypts secrets at rest and keys the API-key digests."""

    def seal(self, plaintext: bytes) -> bytes: ...

    def open(self, sealed: bytes) -> bytes: ...

    @property
    def digest_key(self) -> bytes: ...


# --- storage -----------------------------------------------------------------------------


class ProviderRepository(Protocol):
    def add(self, provider: Provider) -> None: ...

    def get(self, provider_id: str) -> Provider | None: ...

    def list(self) -> list[Provider]: ...

    def count(self) -> int: ...


class ApiKeyRepository(Protocol):
    def add(self, key: ApiKey) -> None: ...

    def get_by_key_id(self, key_id: str) -> ApiKey | None: ...

    def get(self, api_key_id: str) -> ApiKey | None: ...

    def list(self, provider_id: str | None = None) -> list[ApiKey]: ...

    def revoke(self, api_key_id: str, at: datetime) -> None: ...


class MerchantRepository(Protocol):
    def add(self, merchant: Merchant) -> None:
        """Raises ``Conflict`` when the provider already has that external reference."""
        ...

    def get(self, merchant_id: str) -> Merchant | None: ...

    def get_by_reference(self, provider_id: str, external_reference: str) -> Merchant | None: ...

    def list(
        self, provider_id: str | None, after: str | None = None, limit: int = 100
    ) -> list[Merchant]:
        """Ordered by external reference; ``after`` is the last reference of the previous page."""
        ...


class CredentialRepository(Protocol):
    def put(self, credential: GatewayCredential) -> None: ...

    def get(self, merchant_id: str, gateway: str) -> GatewayCredential | None: ...

    def list(self, merchant_id: str) -> list[GatewayCredential]: ...


class SequenceRepository(Protocol):
    def next_value(self, name: str, start: int = 1) -> int:
        """The next number of a named sequence; never repeats, whatever runs concurrently."""
        ...


@attrs.frozen
class StoredResponse:
    status: int
    body: bytes


@attrs.frozen
class IdempotencyClaim:
    """The outcome of claiming an idempotency key.

    ``state`` is ``new`` (the caller owns the key and must finish or release it),
    ``in_flight`` (another request holds it), ``done`` (``response`` is the stored
    answer) or ``mismatch`` (the key was used with a different request).
    """

    state: str
    response: StoredResponse | None = None


class IdempotencyRepository(Protocol):
    def claim(
        self, scope: str, key: str, fingerprint: str, now: datetime, expires_at: datetime
    ) -> IdempotencyClaim: ...

    def finish(self, scope: str, key: str, response: StoredResponse) -> None: ...

    def release(self, scope: str, key: str) -> None:
        """Forget an unfinished claim (the request failed before it changed anything)."""
        ...


@attrs.frozen
class Job:
    id: str
    queue: str
    payload: dict[str, Any]
    due_at: datetime
    attempts: int


class JobRepository(Protocol):
    """Durable work items, leased so that each is taken by exactly one worker."""

    def enqueue(self, job: Job) -> None: ...

    def lease(
        self, queue: str, now: datetime, owner: str, limit: int, lease_until: datetime
    ) -> list[Job]:
        """Take up to ``limit`` due, unleased (or lease-expired) jobs for ``owner``."""
        ...

    def complete(self, job_id: str, owner: str, now: datetime) -> bool: ...

    def retry(self, job_id: str, owner: str, due_at: datetime) -> bool: ...

    def count(self, queue: str, done: bool | None = None) -> int: ...


class TransactionRepository(Protocol):
    def add(self, tx: Transaction) -> None: ...

    def get(
        self, merchant_id: str, transaction_id: str, for_update: bool = False
    ) -> Transaction | None:
        """``for_update`` locks the row until the unit of work ends."""
        ...

    def get_by_gateway_key(self, merchant_id: str, gateway_key: str) -> Transaction | None:
        """The charge that was sent to the gateway under this idempotency key, if any."""
        ...

    def save(self, tx: Transaction) -> None:
        """Write back the mutable fields (status, amounts, reference, failure)."""
        ...

    def add_event(self, event: TransactionEvent) -> None: ...

    def events(self, transaction_id: str) -> list[TransactionEvent]: ...

    def list(
        self, merchant_id: str, after: str | None = None, limit: int = 50
    ) -> list[Transaction]:
        """Newest first; ``after`` is the id of the last transaction of the previous page."""
        ...


class UnitOfWork(Protocol):
    """One transaction: everything done through it commits together or not at all."""

    providers: ProviderRepository
    api_keys: ApiKeyRepository
    merchants: MerchantRepository
    credentials: CredentialRepository
    sequences: SequenceRepository
    idempotency: IdempotencyRepository
    jobs: JobRepository
    transactions: TransactionRepository


@attrs.frozen
class MigrationStatus:
    version: int
    name: str
    applied_at: datetime | None


class Store(Protocol):
    """A database: hands out units of work and keeps its schema current."""

    url_for_display: str

    def unit_of_work(self) -> AbstractContextManager[UnitOfWork]:
        """Commit on normal exit, roll back on an exception."""
        ...

    def migrate(self) -> list[int]:
        """Apply pending numbered migrations under a lock; return the versions applied."""
        ...

    def migration_status(self) -> list[MigrationStatus]: ...

    def close(self) -> None: ...


# --- gateways ------------------------------------------------------------------------------


class Gateway(Protocol):
    """One payment gateway's API, spoken in payhub's neutral terms.

    Adapters raise the ``payhub.domain.payments`` failures (``Declined``,
    ``PaymentMethodInvalid``, ``GatewayCredentialsRejected``, ``GatewayUnavailable``,
    ``GatewayTimeout``) and never let a raw gateway response reach the caller.
    ``idempotency_key`` is passed on to gateways that support one, so a retried call
    after a crash is recognised by the gateway too.
    """

    name: str

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A sale (``request.capture``) or an authorization, from a token or a saved method."""
        ...

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult: ...

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult: ...

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult: ...

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult: ...

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod: ...
