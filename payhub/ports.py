"""Ports: what the core needs from the outside world, as ``typing.Protocol``s.

Adapters in ``payhub.adapters`` implement these; services receive them through
``payhub.hub.PayHub``. Nothing here does I/O itself.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import Any, Protocol, runtime_checkable

import attrs

from payhub.domain.accounting import (
    AccountingConnection,
    AccountingSystem,
    CompanyInfo,
    Grant,
    LinkKind,
    OutgoingCustomer,
    OutgoingInvoice,
    OutgoingItem,
    OutgoingPayment,
    Pushed,
    RemoteCustomer,
    RemoteEnvironment,
    RemoteInvoiceState,
    RemoteItem,
    RemoteLink,
    SyncRun,
)
from payhub.domain.accounts import ApiKey, GatewayCredential, Merchant, Provider
from payhub.domain.catalog import Category, Product
from payhub.domain.consent import ConsentRecord
from payhub.domain.customers import Customer, StoredPaymentMethod
from payhub.domain.debit_authorizations import DebitAuthorization
from payhub.domain.environments import Environment
from payhub.domain.events import DomainEvent, ObjectType
from payhub.domain.invoices import Invoice, InvoicePayment, PaymentSourceKind
from payhub.domain.links import (
    BlockedDomain,
    ClickTotal,
    LinkQuery,
    LinkStatus,
    Resolved,
    ShortLink,
    UsageRecord,
)
from payhub.domain.locations import Location, LocationSettings, Register
from payhub.domain.messaging import Message, OutgoingEmail, OutgoingSms, TextKind
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayNotification,
    GatewayResult,
    SavedMethod,
    SaveMethodRequest,
    Transaction,
    TransactionEvent,
)
from payhub.domain.portal import (
    PortalSessionRecord,
    PortalTokenRecord,
    PortalUserRecord,
    TokenPurpose,
)
from payhub.domain.profiles import MerchantProfile
from payhub.domain.schedules import (
    RunTrigger,
    ScheduledPayment,
    ScheduleRequest,
    ScheduleRun,
    ScheduleStatus,
)
from payhub.domain.taxes import ObservedTaxRate, TaxRate, TaxSettings
from payhub.domain.webhooks import DeliveryAttempt, WebhookDelivery, WebhookEndpoint


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

    def set_time_zone(self, merchant_id: str, time_zone: str | None) -> None: ...


class CredentialRepository(Protocol):
    def put(self, credential: GatewayCredential) -> None: ...

    def get(self, merchant_id: str, gateway: str) -> GatewayCredential | None: ...

    def list(self, merchant_id: str) -> list[GatewayCredential]: ...

    def get_by_notification_token(self, token: str) -> GatewayCredential | None:
        """The credentials whose notification URL ends in ``token`` (migration 19)."""
        ...


class GatewayPublicFieldRepository(Protocol):
    """A merchant's non-secret client values per gateway (publishable keys): never sealed."""

    def put(self, merchant_id: str, gateway: str, fields: dict[str, str], at: datetime) -> None: ...

    def get(self, merchant_id: str, gateway: str) -> dict[str, str]: ...


class DebitAuthorizationRepository(Protocol):
    """The payers' acceptances of bank debits on the pay page, one per transaction."""

    def add(
        self, merchant_id: str, invoice_id: str, transaction_id: str, accepted: DebitAuthorization
    ) -> None:
        """Record it once: a second call for the same transaction changes nothing."""
        ...

    def get(self, merchant_id: str, transaction_id: str) -> DebitAuthorization | None: ...


class MasterKeyRepository(Protocol):
    """The fingerprint of the master key the database's secrets are sealed with."""

    def fingerprint(self) -> str | None: ...

    def record(self, fingerprint: str, at: datetime) -> str:
        """Record it unless one is recorded already; the recorded one either way."""
        ...

    def replace(self, fingerprint: str, at: datetime) -> None: ...


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
        self,
        scope: str,
        key: str,
        fingerprint: str,
        now: datetime,
        expires_at: datetime,
        abandoned_before: datetime | None = None,
    ) -> IdempotencyClaim:
        """An unfinished claim of the same request last made or renewed before
        ``abandoned_before`` was left by a process that died mid-request: it is taken over
        (``new``) instead of ``in_flight``."""
        ...

    def finish(self, scope: str, key: str, response: StoredResponse) -> None: ...

    def renew(self, scope: str, key: str, now: datetime) -> bool:
        """The unfinished claim's holder is alive at ``now`` (false: no such claim)."""
        ...

    def release(self, scope: str, key: str) -> None:
        """Forget an unfinished claim (the request failed before it changed anything)."""
        ...

    def purge_expired(self, now: datetime) -> int:
        """Forget keys past their lifetime; returns how many."""
        ...


@attrs.frozen
class Job:
    id: str
    queue: str
    payload: dict[str, Any]
    due_at: datetime
    attempts: int


@attrs.frozen
class DeadJob:
    id: str
    queue: str
    payload: dict[str, Any]
    attempts: int
    dead_at: datetime
    last_error: str | None


class JobRepository(Protocol):
    """Durable work items, leased so that each is taken by exactly one worker."""

    def enqueue(self, job: Job) -> None: ...

    def lease(
        self, queue: str, now: datetime, owner: str, limit: int, lease_until: datetime
    ) -> list[Job]:
        """Take up to ``limit`` due, unleased (or lease-expired) jobs for ``owner``."""
        ...

    def complete(self, job_id: str, owner: str, now: datetime) -> bool: ...

    def complete_many(self, job_ids: Sequence[str], owner: str, now: datetime) -> int:
        """``complete`` for a whole leased batch in one statement; how many were ours."""
        ...

    def retry(
        self, job_id: str, owner: str, due_at: datetime, error: str | None = None
    ) -> bool: ...

    def bury(self, job_id: str, owner: str, now: datetime, error: str) -> bool:
        """Close a job the worker gave up on, keeping why, so an operator can revive it."""
        ...

    def dead(self, queue: str | None = None, limit: int = 50) -> list[DeadJob]:
        """Given-up jobs, newest first."""
        ...

    def revive(self, job_id: str, now: datetime) -> bool:
        """Make a dead job due again with fresh attempts; False if it is not dead."""
        ...

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

    def get_by_gateway_reference(
        self, merchant_id: str, gateway: str, reference: str, for_update: bool = False
    ) -> Transaction | None:
        """The merchant's transaction the gateway names ``reference`` (its payment id)."""
        ...

    def save(self, tx: Transaction) -> None:
        """Write back the mutable fields (status, amounts, reference, failure)."""
        ...

    def add_event(self, event: TransactionEvent) -> None: ...

    def events(self, transaction_id: str) -> list[TransactionEvent]: ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        statuses: Collection[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[Transaction]:
        """Newest first; ``after`` is the id of the last transaction of the previous page.
        Filters: status among ``statuses``; created at or after ``since``, before ``until``."""
        ...


# Lists below are keyset pages: ``after`` is the id of the last row of the previous page
# (a row of the same merchant), ``limit`` the most rows to return.


class CustomerRepository(Protocol):
    def add(self, customer: Customer) -> None:
        """Raises ``Conflict`` when the merchant has a customer with that account number."""
        ...

    def get(self, merchant_id: str, customer_id: str) -> Customer | None: ...

    def get_by_account_number(self, merchant_id: str, account_number: str) -> Customer | None: ...

    def save(self, customer: Customer) -> None:
        """Write back every field, consent state included (``Conflict`` as for ``add``)."""
        ...

    def add_consent(self, record: ConsentRecord) -> None: ...

    def has_consent_record(self, customer_id: str, record_id: str) -> bool: ...

    def consent_history(
        self, merchant_id: str, customer_id: str, after: str | None = None, limit: int = 50
    ) -> list[ConsentRecord]:
        """Newest first."""
        ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        account_number: str | None = None,
        search: str | None = None,
    ) -> list[Customer]:
        """Newest first. ``search``: part of the name, company, email, phone or account
        number, any letter case."""
        ...


class PaymentMethodRepository(Protocol):
    def gateway_customer_ref(self, customer_id: str, gateway: str) -> str | None: ...

    def remember_gateway_customer(
        self, merchant_id: str, customer_id: str, gateway: str, reference: str, at: datetime
    ) -> None:
        """Keep the first reference stored for (customer, gateway); later ones are ignored."""
        ...

    def add(self, method: StoredPaymentMethod) -> None: ...

    def get(self, merchant_id: str, customer_id: str, method_id: str) -> StoredPaymentMethod | None:
        """A method that has not been removed."""
        ...

    def list(
        self,
        merchant_id: str,
        customer_id: str,
        after: str | None = None,
        limit: int = 50,
        gateway: str | None = None,
    ) -> list[StoredPaymentMethod]:
        """Methods not removed, newest first."""
        ...

    def remove(self, method_id: str, at: datetime) -> None: ...


class ProductRepository(Protocol):
    def add(self, product: Product) -> None:
        """Raises ``Conflict`` when the merchant has a product with that SKU."""
        ...

    def get(self, merchant_id: str, product_id: str) -> Product | None: ...

    def get_by_sku(self, merchant_id: str, sku: str) -> Product | None: ...

    def save(self, product: Product) -> None: ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        category_id: str | None = None,
        include_inactive: bool = False,
    ) -> list[Product]:
        """By name (case-insensitive), then id."""
        ...


class CategoryRepository(Protocol):
    def add(self, category: Category) -> None:
        """Raises ``Conflict`` when the merchant has a category with that name."""
        ...

    def get(self, merchant_id: str, category_id: str) -> Category | None: ...

    def get_by_name(self, merchant_id: str, name: str) -> Category | None:
        """Compared trimmed and case-insensitively."""
        ...

    def save(self, category: Category) -> None: ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        include_inactive: bool = False,
    ) -> list[Category]:
        """By sortOrder, then name (case-insensitive), then id."""
        ...


class TaxRateRepository(Protocol):
    def add(self, rate: TaxRate) -> None: ...

    def get(self, merchant_id: str, tax_rate_id: str) -> TaxRate | None: ...

    def save(self, rate: TaxRate) -> None: ...

    def active_ids(self, merchant_id: str, ids: Collection[str]) -> set[str]:
        """Those of ``ids`` that are active rates of the merchant."""
        ...

    def settings(self, merchant_id: str) -> TaxSettings: ...

    def set_default(self, merchant_id: str, tax_rate_id: str | None, at: datetime) -> None: ...

    def set_automatic_sales_tax(self, merchant_id: str, on: bool, at: datetime) -> None:
        """Filled by the accounting integration."""
        ...

    def record_observed(self, observed: ObservedTaxRate) -> None:
        """Filled by the accounting integration."""
        ...

    def newest_observed(self, merchant_id: str, postal_code: str) -> ObservedTaxRate | None: ...

    def observed(
        self, merchant_id: str, after: str | None = None, limit: int = 50
    ) -> list[ObservedTaxRate]:
        """The newest observation per postal code, by postal code; ``after`` is a postal code."""
        ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        include_inactive: bool = False,
    ) -> list[TaxRate]:
        """By name (case-insensitive), then id."""
        ...


class LocationRepository(Protocol):
    def add(self, location: Location) -> None:
        """Raises ``Conflict`` when the merchant has a location with that short code."""
        ...

    def get(self, merchant_id: str, location_id: str) -> Location | None: ...

    def get_by_short_code(self, merchant_id: str, short_code: str) -> Location | None: ...

    def save(self, location: Location) -> None: ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        include_inactive: bool = False,
    ) -> list[Location]:
        """By name (case-insensitive), then id."""
        ...

    def active_ids(self, merchant_id: str, ids: Collection[str]) -> set[str]:
        """Those of ``ids`` that are active locations of the merchant."""
        ...

    def count_active(self, merchant_id: str) -> int: ...

    def settings(self, merchant_id: str) -> LocationSettings: ...

    def lock_settings(self, merchant_id: str, at: datetime) -> LocationSettings:
        """The settings, with the merchant's settings row locked until the unit of work ends
        (created if missing), so location changes of one merchant take turns."""
        ...

    def put_settings(self, merchant_id: str, settings: LocationSettings, at: datetime) -> None: ...


class RegisterRepository(Protocol):
    def add(self, register: Register) -> None: ...

    def get(self, merchant_id: str, register_id: str) -> Register | None: ...

    def list(self, merchant_id: str, location_id: str | None = None) -> list[Register]:
        """The merchant's registers (of one location), active and not, by name."""
        ...

    def save(self, register: Register) -> None:
        """Write back the name and whether it is active."""
        ...

    def count_active(self, location_id: str) -> int: ...


class ShortLinkRepository(Protocol):
    """Short links and their opens, counted per link and UTC day."""

    def lock_creations(self, provider_id: str) -> None:
        """Queue this provider's creations behind one another until the unit of work ends,
        so the creation limits and ``clientReference`` checks hold across processes."""
        ...

    def add(self, link: ShortLink) -> None: ...

    def code_taken(self, code: str) -> bool: ...

    def get(self, provider_id: str, code: str) -> ShortLink | None: ...

    def find_active_by_client_reference(
        self, provider_id: str, merchant_id: str | None, client_reference: str, now: datetime
    ) -> ShortLink | None:
        """The owner's link with that reference that is neither revoked nor expired."""
        ...

    def count_created(
        self, since: datetime, *, provider_id: str | None = None, merchant_id: str | None = None
    ) -> int:
        """Links created after ``since`` by one provider (all its merchants) or one merchant."""
        ...

    def nth_created(
        self,
        since: datetime,
        n: int,
        *,
        provider_id: str | None = None,
        merchant_id: str | None = None,
    ) -> datetime | None:
        """When the ``n``-th oldest (from 1) of those links was created."""
        ...

    def list(self, query: LinkQuery, offset: int, limit: int) -> list[ShortLink]:
        """Newest first."""
        ...

    def count(self, query: LinkQuery) -> int: ...

    def revoke(self, link_id: str, at: datetime, reason: str | None) -> bool:
        """Revoke if not yet revoked (a repeat keeps the first time and reason)."""
        ...

    def unrevoked_on_domain(self, domain: str) -> Sequence[ShortLink]:
        """The links ``revoke_on_domain`` would revoke now (oldest first)."""
        ...

    def revoke_on_domain(self, domain: str, at: datetime, reason: str) -> int:
        """Revoke every unrevoked link whose target is on ``domain`` or under it."""
        ...

    def resolve(self, code: str, environment: Environment) -> Resolved | None: ...

    def record_open(self, link_id: str, day: date, at: datetime, opens: int = 1) -> None:
        """Add ``opens`` to the (link, UTC day) counter; ``at`` is the latest of them."""
        ...

    def click_totals(self, link_ids: Collection[str]) -> dict[str, ClickTotal]: ...

    def daily_opens(self, link_id: str, first_day: date) -> dict[date, int]: ...


class LinkSettingsRepository(Protocol):
    """The operator's short-link settings: domains, the abuse blocklist and the switches."""

    def get_setting(self, name: str) -> str | None: ...

    def put_setting(self, name: str, value: str | None, at: datetime) -> None:
        """``None`` removes the setting."""
        ...

    def settings_with_prefix(self, prefix: str) -> dict[str, str]: ...

    def blocked_among(self, domains: Collection[str]) -> set[str]:
        """Those of ``domains`` that are on the blocklist."""
        ...

    def block(self, domain: str, reason: str | None, at: datetime) -> bool:
        """False when the domain was already blocked."""
        ...

    def unblock(self, domain: str) -> bool: ...

    def blocklist(self) -> list[BlockedDomain]: ...

    def switches(self, owner_ids: Collection[str]) -> dict[str, bool]:
        """The explicit on/off state of providers or merchants, by id (absent: default on)."""
        ...

    def set_switch(self, owner_id: str, enabled: bool, at: datetime) -> None: ...


class ApiUsageRepository(Protocol):
    def count(self, merchant_id: str, day: date) -> None:
        """One more API request for the merchant on that UTC day."""
        ...

    def since(self, first_day: date, provider_id: str | None = None) -> list[UsageRecord]: ...


@attrs.frozen
class InvoiceSettings:
    """A merchant's invoice settings (the portal's): its number format (``None``: the default
    ``INV-`` numbers), the counter's first value, the counter generation (bumped whenever
    the format or start changes, so a new start takes effect), and the allowed embed sites."""

    number_format: str | None = None
    starting_number: int = 1
    generation: int = 0
    embed_origins: tuple[str, ...] = ()


class InvoiceRepository(Protocol):
    def add(self, invoice: Invoice) -> None:
        """Store a new invoice and its lines; ``Conflict`` when the merchant has the number."""
        ...

    def get(self, merchant_id: str, number: str, for_update: bool = False) -> Invoice | None:
        """With lines and payments; ``for_update`` locks the row until the unit of work ends."""
        ...

    def get_by_token(self, pay_token: str, for_update: bool = False) -> Invoice | None: ...

    def number_taken(self, merchant_id: str, number: str) -> bool: ...

    def save(self, invoice: Invoice) -> None:
        """Write back status, amount paid, the reservation and the timestamps."""
        ...

    def add_payment(self, payment: InvoicePayment) -> None: ...

    def payment_for_transaction(self, transaction_id: str) -> InvoicePayment | None: ...

    def settled_by(
        self, merchant_id: str, source: PaymentSourceKind, system: str | None, reference: str
    ) -> tuple[str, InvoicePayment] | None:
        """The invoice number and payment an outside record already settled, if any."""
        ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        customer_id: str | None = None,
        statuses: Collection[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[Invoice]:
        """Newest first; ``after`` is the invoice number of the previous page's last row.
        Filters: status among ``statuses``; created at or after ``since``, before ``until``."""
        ...

    def settings(self, merchant_id: str) -> InvoiceSettings: ...

    def put_settings(self, merchant_id: str, settings: InvoiceSettings, at: datetime) -> None: ...


class MessageRepository(Protocol):
    """The transactional outbox, the merchants' text-kind switches and STOP blocks."""

    def add(self, message: Message) -> None: ...

    def get(self, message_id: str, for_update: bool = False) -> Message | None:
        """``for_update`` locks the row until the unit of work ends."""
        ...

    def save(self, message: Message) -> None:
        """Write back the mutable fields (status, reason, attempts, times, provider ids)."""
        ...

    def by_provider_id(
        self, provider: str, provider_message_id: str, for_update: bool = False
    ) -> Message | None:
        """The message a provider's delivery report is about (its id at that provider)."""
        ...

    def enabled_kinds(self, merchant_id: str) -> frozenset[TextKind]: ...

    def set_kind(self, merchant_id: str, kind: TextKind, enabled: bool, at: datetime) -> None: ...

    def is_blocked(self, phone: str) -> bool: ...

    def set_blocked(
        self, phone: str, blocked: bool, at: datetime, keyword: str, provider_message_id: str
    ) -> bool:
        """Block (STOP) or unblock (START) a number; False when it already was so."""
        ...

    def customers_at(self, phone: str) -> list[tuple[str, str]]:
        """``(merchant_id, customer_id)`` of every customer with that number or consent for it."""
        ...

    def provider_ids(self, to: str) -> set[str]:
        """Provider message ids already recorded for messages to ``to``."""
        ...

    def last_texting_merchant(self, phone: str) -> str | None:
        """The merchant whose text to ``phone`` went out last (for HELP replies)."""
        ...

    def caused_by(self, event_id: str) -> list[Message]:
        """The messages a domain event queued (``Message.event_id``), oldest first."""
        ...

    def list(
        self,
        merchant_id: str | None,
        customer_id: str | None = None,
        statuses: Collection[str] | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[Message]:
        """Newest first; ``merchant_id`` None lists every merchant's (the operator's view)."""
        ...


class ScheduledPaymentRepository(Protocol):
    def add(self, schedule: ScheduledPayment) -> None: ...

    def get(
        self, merchant_id: str, schedule_id: str, for_update: bool = False
    ) -> ScheduledPayment | None:
        """``for_update`` locks the row until the unit of work ends."""
        ...

    def get_for_run(self, schedule_id: str) -> ScheduledPayment | None:
        """The schedule by id alone, locked (the worker knows no merchant)."""
        ...

    def save(self, schedule: ScheduledPayment) -> None: ...

    def add_run(self, run: ScheduleRun) -> None:
        """Raises ``Conflict`` when that (trigger, run number, attempt) exists."""
        ...

    def save_run(self, run: ScheduleRun) -> None: ...

    def get_run(
        self, schedule_id: str, trigger: RunTrigger, run_number: int, attempt: int
    ) -> ScheduleRun | None: ...

    def runs(self, schedule_id: str, limit: int = 20) -> list[ScheduleRun]:
        """The most recent attempts first."""
        ...

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        customer_id: str | None = None,
        status: ScheduleStatus | None = None,
    ) -> list[ScheduledPayment]:
        """Newest first."""
        ...


class ScheduleRequestRepository(Protocol):
    def add(self, request: ScheduleRequest) -> None: ...

    def get(
        self, merchant_id: str, request_id: str, for_update: bool = False
    ) -> ScheduleRequest | None: ...

    def get_by_token(self, token: str, for_update: bool = False) -> ScheduleRequest | None: ...

    def save(self, request: ScheduleRequest) -> None: ...

    def list(
        self, merchant_id: str, after: str | None = None, limit: int = 50
    ) -> list[ScheduleRequest]:
        """Newest first."""
        ...

    def add_form(self, nonce: str, request_id: str, issued_at: datetime) -> None: ...

    def use_form(self, nonce: str, request_id: str, now: datetime, issued_after: datetime) -> bool:
        """Spend an approval form token: true once, for an unused one issued after the time."""
        ...


class WebhookRepository(Protocol):
    """Webhook endpoints, their deliveries (one per event and endpoint) and the attempt log."""

    def add_endpoint(self, endpoint: WebhookEndpoint) -> None: ...

    def get_endpoint(
        self, provider_id: str, endpoint_id: str, for_update: bool = False
    ) -> WebhookEndpoint | None:
        """Not deleted; ``for_update`` locks the row until the unit of work ends."""
        ...

    def save_endpoint(self, endpoint: WebhookEndpoint) -> None: ...

    def list_endpoints(
        self,
        provider_id: str,
        merchant_id: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[WebhookEndpoint]:
        """Not deleted, oldest first (by creation, then id); ``merchant_id`` keeps only the
        endpoints limited to that merchant."""
        ...

    def enabled_endpoints(self, provider_id: str) -> list[WebhookEndpoint]: ...

    def lock_chain(self, endpoint_id: str, object_id: str) -> int:
        """Queue deliveries of one object to one endpoint behind one another until the unit
        of work ends; the highest ``seq`` used so far (0 when none)."""
        ...

    def has_open(self, endpoint_id: str, object_id: str) -> bool:
        """Whether a delivery of the object to the endpoint is waiting or pending."""
        ...

    def add_delivery(self, delivery: WebhookDelivery) -> None: ...

    def get_delivery(
        self, delivery_id: str, for_update: bool = False
    ) -> WebhookDelivery | None: ...

    def save_delivery(self, delivery: WebhookDelivery) -> None: ...

    def next_waiting(self, endpoint_id: str, object_id: str) -> WebhookDelivery | None:
        """The waiting delivery of that object to that endpoint with the lowest ``seq``."""
        ...

    def deliveries_of_event(self, provider_id: str, event_id: str) -> list[WebhookDelivery]:
        """Oldest first."""
        ...

    def add_attempt(self, attempt: DeliveryAttempt) -> None: ...

    def attempts(
        self, endpoint_id: str, after: str | None = None, limit: int = 50
    ) -> list[DeliveryAttempt]:
        """The endpoint's attempt log, newest first; ``after`` is an attempt id."""
        ...

    def purge_finished_before(self, cutoff: datetime) -> int:
        """Forget deliveries that finished before ``cutoff`` and their attempts; how many
        deliveries."""
        ...


# --- domain events -------------------------------------------------------------------------


@attrs.frozen
class EventQuery:
    """Which events a list shows: one provider's, narrowed to one merchant, to some types,
    to one object, and to those created at or after ``since`` (the retention window)."""

    provider_id: str
    merchant_id: str | None = None
    types: frozenset[str] | None = None
    object_type: ObjectType | None = None
    object_id: str | None = None
    since: datetime | None = None


class EventRepository(Protocol):
    """Domain events, written by the unit of work of the change that caused them."""

    def add(self, event: DomainEvent) -> None: ...

    def get(self, event_id: str) -> DomainEvent | None: ...

    def list(
        self, query: EventQuery, after: str | None = None, limit: int = 50
    ) -> list[DomainEvent]:
        """Newest first (in recording order); ``after`` is the id of the previous page's last
        event (events older than it follow)."""
        ...

    def purge_before(self, cutoff: datetime) -> int:
        """Forget events created before ``cutoff``; returns how many."""
        ...


class Snapshots(Protocol):
    """Objects as the API returns them (JSON values, money as ``Decimal``), for events' data.

    The composition root provides it (``payhub.wire.snapshots``, the same presenters the HTTP
    API answers with), so an event's ``data`` is the API's representation whichever process
    (server, worker, CLI, in-process SDK) recorded it.
    """

    def payment(self, tx: Transaction, ledger: Sequence[TransactionEvent]) -> dict[str, Any]: ...

    def invoice(self, invoice: Invoice, pay_url: str) -> dict[str, Any]: ...

    def customer(self, customer: Customer) -> dict[str, Any]: ...

    def scheduled_payment(
        self, schedule: ScheduledPayment, runs: Sequence[ScheduleRun]
    ) -> dict[str, Any]: ...

    def schedule_request(self, request: ScheduleRequest, approval_url: str) -> dict[str, Any]: ...

    def short_link(
        self, link: ShortLink, short_url: str | None, status: LinkStatus, clicks: ClickTotal
    ) -> dict[str, Any]: ...


class PortalUserRepository(Protocol):
    def add(self, user: PortalUserRecord) -> None:
        """Raises ``Conflict`` when a user has that email address."""
        ...

    def get(self, user_id: str) -> PortalUserRecord | None: ...

    def get_by_email(self, email: str) -> PortalUserRecord | None: ...

    def save(self, user: PortalUserRecord) -> None:
        """Write back every mutable field (name, role, password hash, two-factor, status)."""
        ...

    def list(
        self,
        merchant_id: str | None = None,
        operators: bool = False,
        environment: Environment | None = None,
    ) -> list[PortalUserRecord]:
        """By email. ``merchant_id``: that merchant's users; ``operators``: the operator's;
        neither: everyone (in ``environment`` when given)."""
        ...


class PortalSessionRepository(Protocol):
    def add(self, session: PortalSessionRecord) -> None: ...

    def get(self, digest: str) -> PortalSessionRecord | None: ...

    def touch(self, digest: str, at: datetime) -> None: ...

    def delete(self, digest: str) -> None: ...

    def delete_for_user(self, user_id: str) -> int:
        """End every session of the user (disabled, password changed); how many."""
        ...

    def purge(self, now: datetime) -> int:
        """Forget sessions past their absolute end; how many."""
        ...


class PortalTokenRepository(Protocol):
    def add(self, token: PortalTokenRecord) -> None: ...

    def get(self, digest: str, for_update: bool = False) -> PortalTokenRecord | None: ...

    def use(self, digest: str, at: datetime) -> bool:
        """Mark it used; False when it already was (two tabs racing: one wins)."""
        ...

    def revoke_for_user(self, user_id: str, purpose: TokenPurpose, at: datetime) -> int:
        """Spend every unused token of that purpose (a new invite voids the old ones)."""
        ...


class MerchantProfileRepository(Protocol):
    def get(self, merchant_id: str) -> MerchantProfile:
        """The merchant's profile; an empty one when none was saved."""
        ...

    def put(self, merchant_id: str, profile: MerchantProfile, at: datetime) -> None: ...


class AccountingRepository(Protocol):
    """Accounting connections (one per merchant and system), the remote id of every object
    pushed, and the sync runs (migration 22)."""

    def get(
        self, merchant_id: str, system: AccountingSystem, for_update: bool = False
    ) -> AccountingConnection | None: ...

    def put(self, connection: AccountingConnection) -> None:
        """Insert or write back every field."""
        ...

    def by_state(self, system: AccountingSystem, digest: str) -> AccountingConnection | None:
        """The connection whose authorization in progress has that state digest."""
        ...

    def by_company(self, system: AccountingSystem, company_id: str) -> list[AccountingConnection]:
        """Connected connections to that company (a webhook names only the company)."""
        ...

    def link(
        self, merchant_id: str, system: AccountingSystem, kind: LinkKind, local_id: str
    ) -> RemoteLink | None: ...

    def link_by_remote(
        self, merchant_id: str, system: AccountingSystem, kind: LinkKind, remote_id: str
    ) -> RemoteLink | None: ...

    def put_link(self, link: RemoteLink) -> None:
        """Insert or write back; ``Conflict`` when another local object has the remote id."""
        ...

    def links(
        self,
        merchant_id: str,
        system: AccountingSystem,
        kind: LinkKind,
        local_ids: Collection[str] | None = None,
    ) -> list[RemoteLink]:
        """Every link of that kind (``local_ids``: only those), by local id."""
        ...

    def add_run(self, run: SyncRun) -> None: ...

    def get_run(self, merchant_id: str, run_id: str) -> SyncRun | None: ...

    def save_run(self, run: SyncRun) -> None: ...

    def latest_run(
        self, merchant_id: str, system: AccountingSystem, finished: bool = False
    ) -> SyncRun | None:
        """The newest run (``finished``: the newest finished one)."""
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
    customers: CustomerRepository
    payment_methods: PaymentMethodRepository
    products: ProductRepository
    categories: CategoryRepository
    tax_rates: TaxRateRepository
    locations: LocationRepository
    registers: RegisterRepository
    short_links: ShortLinkRepository
    link_settings: LinkSettingsRepository
    api_usage: ApiUsageRepository
    messages: MessageRepository
    invoices: InvoiceRepository
    scheduled_payments: ScheduledPaymentRepository
    schedule_requests: ScheduleRequestRepository
    gateway_public_fields: GatewayPublicFieldRepository
    debit_authorizations: DebitAuthorizationRepository
    master_key: MasterKeyRepository
    webhooks: WebhookRepository
    events: EventRepository
    portal_users: PortalUserRepository
    portal_sessions: PortalSessionRepository
    portal_tokens: PortalTokenRepository
    merchant_profiles: MerchantProfileRepository
    accounting: AccountingRepository


@attrs.frozen
class MigrationStatus:
    version: int
    name: str
    applied_at: datetime | None


class Store(Protocol):
    """A database: hands out units of work and keeps its schema current."""

    url_for_display: str

    def unit_of_work(self, readonly: bool = False) -> AbstractContextManager[UnitOfWork]:
        """Commit on normal exit, roll back on an exception. ``readonly`` promises no writes,
        so the store need not take its write lock (SQLite)."""
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


@runtime_checkable
class FindsLostCharges(Protocol):
    """A gateway that can find a charge whose answer was lost, by payhub's idempotency key.

    Gateways without native idempotency (Authorize.Net, NMI, CyberSource, Worldpay,
    Heartland, Elavon, PayTrace, Forte, USAePay, Nuvei), those whose single-use tokens cannot
    be resent (Braintree) and those whose keys lapse quickly (Helcim) implement it; a retried
    ``Unknown`` charge asks it before sending anything again. The list is pinned by
    ``tests/gateways/test_all_adapters.py``.
    """

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None: ...


@runtime_checkable
class ReadsNotifications(Protocol):
    """A gateway that reports outcomes by posting them to payhub (Adyen's webhooks).

    ``read_notifications`` checks the request with the merchant's credentials (basic
    authentication where configured: ``Unauthenticated`` otherwise; each item's signature)
    and returns each item, those that must be ignored carrying their ``problem``. It raises
    ``ValidationError`` for a body that is not the gateway's notification at all.
    """

    def read_notifications(
        self, creds: GatewayCredentials, body: bytes, authorization: str | None
    ) -> list[GatewayNotification]: ...


@runtime_checkable
class MakesPayPageSessions(Protocol):
    """A gateway whose browser SDK needs a value made server-side before it can take a card
    (PayTrace Protect.js's client key, a GP-API single-use access token...).

    ``pay_page_session`` asks the gateway for it with the merchant's credentials and returns
    only what the page may see (no secret): the names are the gateway's pay-page driver's
    ``session`` values. ``origin`` is the pages' origin (``https://pay.example.com``), which
    some SDKs are bound to (CyberSource Microform's targetOrigins). It raises the
    ``payhub.domain.payments`` failures like every call.
    """

    def pay_page_session(self, creds: GatewayCredentials, origin: str) -> dict[str, str]: ...


@attrs.frozen
class CheckoutRequest:
    """An amount-bound pay-page session: what the payer chose on the page, already checked by
    the invoice's rules against its balance (``amount``), or ``None`` on the schedule approval
    page, where the card is only verified and saved. ``capture`` is False for authorize-only
    invoices. ``idempotency_key`` is unique per session; ``origin`` is the pages' origin."""

    amount: Money | None
    capture: bool
    idempotency_key: str
    origin: str
    description: str | None = None
    currency: str = "USD"  # the amount's, or on the approval page the schedule's


@attrs.frozen
class PayPageCheckout:
    """A vendor session made for one amount. ``reference`` is the vendor's id of it (PayPal's
    order id...), which the page's payment token must name; ``public`` is all the page sees."""

    reference: str
    public: dict[str, str]


@runtime_checkable
class MakesPayPageCheckouts(Protocol):
    """A gateway whose browser SDK needs a session bound to the amount the payer picks on the
    page (PayPal's order, Adyen's /sessions, Nuvei's openOrder...), made through the adapter
    with the merchant's credentials when the payer presses Pay, before the card is tokenized.

    ``checkout_reference`` reads back which session a payment token from that page belongs to
    (``None`` when it belongs to none), so the pay page can refuse a token whose session was
    made for another amount. Both raise the ``payhub.domain.payments`` failures like every call.
    """

    def pay_page_checkout(
        self, creds: GatewayCredentials, request: CheckoutRequest
    ) -> PayPageCheckout: ...

    def checkout_reference(self, payment_token: str) -> str | None: ...


# --- messaging -----------------------------------------------------------------------------


class SmsSender(Protocol):
    """An SMS API (Twilio), or the outbox adapter that delivers nowhere.

    ``send`` returns the provider's message id or raises ``SendFailed``. ``find_sent`` finds
    a message the provider already took (its ids), so an attempt that crashed between the
    call and the record is not sent twice. ``verify_inbound`` checks an inbound webhook's
    signature against the full public URL and the POST parameters.
    """

    name: str

    def send(self, sms: OutgoingSms) -> str: ...

    def find_sent(self, sms: OutgoingSms, since: datetime) -> list[str]: ...

    def verify_inbound(
        self, url: str, params: Sequence[tuple[str, str]], signature: str | None
    ) -> bool: ...


class PasswordHasher(Protocol):
    """Slow, salted password hashing (argon2id): the hash string carries its parameters."""

    def hash(self, password: str) -> str: ...

    def verify(self, stored: str, password: str) -> bool: ...

    def needs_rehash(self, stored: str) -> bool: ...


class Mailer(Protocol):
    """An SMTP server, or the outbox adapter. ``send`` returns the Message-ID used; the
    same message always gets the same Message-ID, so a resend after a crash is recognisable
    to the receiving side."""

    name: str

    def send(self, email: OutgoingEmail) -> str: ...


# --- webhooks ------------------------------------------------------------------------------


@attrs.frozen
class WebhookResponse:
    """What one POST to a webhook endpoint came back with. ``status`` is ``None`` when no
    answer came (refused address, connection error, timeout); ``error`` then says why."""

    status: int | None
    duration_ms: int
    retry_after: str | None = None
    error: str | None = None


class WebhookSender(Protocol):
    """POSTs a signed event. Resolves the host and refuses any non-public address at connect
    time (DNS rebinding), loopback only when ``allow_loopback``; follows no redirects; gives
    up after 15 s. Never raises for the receiver's failures: they come back as a response."""

    def post(
        self, url: str, headers: dict[str, str], body: bytes, *, allow_loopback: bool = False
    ) -> WebhookResponse: ...


# --- accounting systems ----------------------------------------------------------------------


@attrs.frozen
class AccountingSession:
    """Who a call is for: the company, its environment and a fresh access token."""

    company_id: str
    environment: RemoteEnvironment
    access_token: str = attrs.field(repr=False)


class AccountingClient(Protocol):
    """An online accounting system (QuickBooks Online: ``adapters/accounting/qbo.py``).

    Raises ``GrantRevoked`` when the grant is gone (revoked, expired refresh token),
    ``AccessExpired`` on a 401 (the caller refreshes once and tries again),
    ``AccountingUnavailable`` after its own retries of throttling (429) and 5xx answers,
    and ``AccountingRejected`` for a request the system refused (with its code and text).
    """

    system: AccountingSystem

    def authorization_url(self, environment: RemoteEnvironment, state: str) -> str: ...

    def exchange_code(self, environment: RemoteEnvironment, code: str, now: datetime) -> Grant: ...

    def refresh(self, environment: RemoteEnvironment, refresh_token: str, now: datetime) -> Grant:
        """A new grant; its refresh token replaces the old one (rotation)."""
        ...

    def revoke(self, environment: RemoteEnvironment, refresh_token: str) -> None:
        """Best effort: tell the system the grant is no longer wanted."""
        ...

    def company(self, session: AccountingSession) -> CompanyInfo: ...

    def customers(self, session: AccountingSession) -> list[RemoteCustomer]: ...

    def push_customer(
        self,
        session: AccountingSession,
        customer: OutgoingCustomer,
        link: RemoteLink,
    ) -> Pushed:
        """Create (``link.remote_id`` is None; ``link.request_id`` makes it idempotent) or
        update with the link's SyncToken, recovering from a stale one."""
        ...

    def items(self, session: AccountingSession) -> list[RemoteItem]:
        """The company's active Service, NonInventory and Inventory items."""
        ...

    def push_item(
        self, session: AccountingSession, item: OutgoingItem, link: RemoteLink
    ) -> Pushed: ...

    def push_invoice(
        self, session: AccountingSession, invoice: OutgoingInvoice, link: RemoteLink
    ) -> Pushed: ...

    def push_payment(
        self, session: AccountingSession, payment: OutgoingPayment, link: RemoteLink
    ) -> Pushed: ...

    def changed_invoices(
        self, session: AccountingSession, since: datetime
    ) -> list[RemoteInvoiceState]:
        """Invoices changed since ``since`` (change data capture: 30 days back at most)."""
        ...

    def verify_webhook(self, body: bytes, signature: str | None) -> bool:
        """The notification really comes from the system (``intuit-signature``)."""
        ...
