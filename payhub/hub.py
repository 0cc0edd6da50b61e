"""``PayHub``: the bootstrap that wires adapters into services, and the in-process SDK.

Tenancy is structural: you reach a merchant only through its provider::

    hub = PayHub.open("sqlite:///payhub.db")
    caller = hub.authenticate(api_key)          # or hub.as_provider(provider_id)
    shop = hub.provider(caller)
    shop.merchants.create("acme-42", "Acme Ltd")
    shop.merchant("acme-42").credentials.put("stripe", CredentialInput(...))
"""

from __future__ import annotations

import os
from pathlib import Path

from payhub.adapters.accounting.qbo import QboConfig, QuickBooksOnline
from payhub.adapters.gateways.registry import default_catalog, default_gateways
from payhub.adapters.master_key import default_key_file, open_master_keys
from payhub.adapters.messaging import mailer_from_env, sms_from_env, status_callback_url
from payhub.adapters.passwords import Argon2Passwords
from payhub.adapters.secrets import FernetSecretBox
from payhub.adapters.storage import open_store
from payhub.adapters.system import SystemClock, SystemRandomness
from payhub.adapters.webhooks.sender import HttpWebhookSender
from payhub.domain.accounts import Merchant
from payhub.domain.environments import Environment
from payhub.domain.errors import NotFound
from payhub.domain.gateways import GatewayCatalog, GatewayInfo
from payhub.ports import (
    AccountingClient,
    Clock,
    Gateway,
    Mailer,
    PasswordHasher,
    Randomness,
    SecretBox,
    SmsSender,
    Store,
    WebhookSender,
)
from payhub.services.accounting import QUEUE as ACCOUNTING_QUEUE
from payhub.services.accounting import TYPES as ACCOUNTING_TYPES
from payhub.services.accounting import (
    AccountingOnline,
    AccountingReaction,
    AccountingWebhooks,
    SyncEngine,
)
from payhub.services.auth import Authenticator, Caller
from payhub.services.catalog import Categories, Products, TaxRates
from payhub.services.customers import Customers
from payhub.services.deps import Deps
from payhub.services.events import Events
from payhub.services.gateway_notifications import GatewayNotifications
from payhub.services.integrations import Integrations
from payhub.services.invoices import Invoices, PayPages
from payhub.services.links import OPENS_FLUSH_S, LinkAdmin, Redirects, ShortHosts, ShortLinks
from payhub.services.locations import Locations
from payhub.services.merchant_keys import MerchantKeys
from payhub.services.merchants import Credentials, Merchants
from payhub.services.messaging import QUEUE as OUTBOX_QUEUE
from payhub.services.messaging import Inbound, Outbox, Texting
from payhub.services.notices import TYPES as NOTICE_TYPES
from payhub.services.notices import Notices
from payhub.services.operators import Operators
from payhub.services.payments import Payments
from payhub.services.portal_accounts import PortalAccounts
from payhub.services.profiles import Profiles
from payhub.services.registers import Registers
from payhub.services.schedule_requests import Approvals, ScheduleRequests
from payhub.services.schedules import QUEUE as SCHEDULES_QUEUE
from payhub.services.schedules import Runner, ScheduledPayments
from payhub.services.webhooks import QUEUE as WEBHOOKS_QUEUE
from payhub.services.webhooks import Deliverer, WebhookEndpoints, WebhookReaction
from payhub.services.worker import DeadLetters, JobHandler
from payhub.wire.snapshots import WireSnapshots

# Test-only: webhook endpoints on localhost / 127.0.0.1 / [::1] for sandbox providers.
# Production providers never get it (docs/webhooks.md).
ALLOW_LOOPBACK_ENV = "PAYHUB_WEBHOOKS_ALLOW_LOOPBACK"

DEFAULT_DATABASE_URL = "sqlite:///payhub.db"


class MerchantScope:
    """Everything one merchant's operations need; reached only through ``ProviderScope``."""

    def __init__(
        self,
        deps: Deps,
        caller: Caller,
        reference: str,
        gateways: dict[str, Gateway],
        accounting: AccountingClient | None = None,
    ) -> None:
        self.reference = reference
        self.credentials = Credentials(deps, caller, reference)
        self.payments = Payments(deps, caller, reference, gateways)
        self.customers = Customers(deps, caller, reference, gateways)
        self.products = Products(deps, caller, reference)
        self.categories = Categories(deps, caller, reference)
        self.tax_rates = TaxRates(deps, caller, reference)
        self.locations = Locations(deps, caller, reference)
        self.registers = Registers(deps, caller, reference, gateways)
        self.integrations = Integrations(deps, caller, reference)
        self.texting = Texting(deps, caller, reference)
        self.invoices = Invoices(deps, caller, reference)
        self.scheduled_payments = ScheduledPayments(deps, caller, reference, gateways)
        self.schedule_requests = ScheduleRequests(deps, caller, reference, gateways)
        self.profile = Profiles(deps, caller, reference)
        self.keys = MerchantKeys(deps, caller, reference)
        self.accounting_online = AccountingOnline(deps, caller, reference, accounting)
        self._merchants = Merchants(deps, caller)

    def set_time_zone(self, time_zone: str) -> Merchant:
        """The portal's setting (an IANA name); texting hours and schedules follow it."""
        return self._merchants.set_time_zone(self.reference, time_zone)


class ProviderScope:
    """The operations one caller may perform; a merchant key's scope is narrower."""

    def __init__(
        self,
        deps: Deps,
        caller: Caller,
        gateways: dict[str, Gateway],
        allow_loopback_webhooks: bool = False,
        accounting: AccountingClient | None = None,
    ) -> None:
        self._deps = deps
        self._gateways = gateways
        self._accounting = accounting
        self.caller = caller
        self.merchants = Merchants(deps, caller)
        self.short_links = ShortLinks(deps, caller)
        self.webhooks = WebhookEndpoints(deps, caller, allow_loopback=allow_loopback_webhooks)
        self.events = Events(deps, caller)

    def merchant(self, reference: str) -> MerchantScope:
        return MerchantScope(self._deps, self.caller, reference, self._gateways, self._accounting)

    @property
    def catalog(self) -> GatewayCatalog:
        return self._deps.catalog

    def gateways(self) -> list[GatewayInfo]:
        return self._deps.catalog.for_environment(self.caller.environment)


class PayHub:
    def __init__(
        self,
        store: Store,
        secrets: SecretBox,
        clock: Clock | None = None,
        randomness: Randomness | None = None,
        gateways: dict[str, Gateway] | None = None,
        public_url: str | None = None,
        sms: SmsSender | None = None,
        mailer: Mailer | None = None,
        webhook_sender: WebhookSender | None = None,
        allow_loopback_webhooks: bool | None = None,
        catalog: GatewayCatalog | None = None,
        passwords: PasswordHasher | None = None,
        accounting: AccountingClient | None = None,
    ) -> None:
        self.gateway_adapters = gateways if gateways is not None else default_gateways()
        self.catalog = catalog if catalog is not None else default_catalog()
        self.deps = Deps(
            store=store,
            clock=clock or SystemClock(),
            randomness=randomness or SystemRandomness(),
            secrets=secrets,
            snapshots=WireSnapshots(),
            catalog=self.catalog,
            public_url=public_url or os.environ.get("PAYHUB_PUBLIC_URL") or "http://localhost:8000",
        )
        self.store = store
        # Reactions to domain events, each enqueuing its own work in the change's transaction
        # (docs/architecture.md, "Domain events"). Texting and email:
        self.deps.reactions.register("messaging", Notices(self.deps), NOTICE_TYPES)
        self.deps.reactions.register("webhooks", WebhookReaction(self.deps))
        self.operators = Operators(self.deps)
        self.dead_letters = DeadLetters(self.deps)
        self._auth = Authenticator(self.deps)
        short_hosts = ShortHosts(self.deps)
        self.link_admin = LinkAdmin(self.deps, short_hosts)
        self.redirects = Redirects(
            self.deps,
            short_hosts,
            float(os.environ.get("PAYHUB_OPENS_FLUSH_SECONDS") or OPENS_FLUSH_S),
        )
        # Texts and emails: Twilio / SMTP when configured in the environment, else the outbox
        # adapter (delivers nowhere). See docs/messaging.md.
        # With a public URL, Twilio texts ask for delivery reports (StatusCallback) on it.
        reports = status_callback_url(public_url or os.environ.get("PAYHUB_PUBLIC_URL"))
        self.sms = sms if sms is not None else sms_from_env(os.environ, reports)
        self.mailer = mailer if mailer is not None else mailer_from_env(os.environ)
        self.outbox = Outbox(self.deps, self.sms, self.mailer)
        self.inbound = Inbound(self.deps, self.sms)
        self.pay_pages = PayPages(self.deps, self.gateway_adapters)
        # Outcomes gateways post to payhub (Adyen's webhooks), applied like status reads.
        self.gateway_notifications = GatewayNotifications(self.deps, self.gateway_adapters)
        if allow_loopback_webhooks is None:
            allow_loopback_webhooks = os.environ.get(ALLOW_LOOPBACK_ENV, "") in ("1", "true")
        self.allow_loopback_webhooks = allow_loopback_webhooks
        self.webhook_sender = webhook_sender if webhook_sender is not None else HttpWebhookSender()
        self.webhooks = Deliverer(
            self.deps, self.webhook_sender, self.mailer, allow_loopback=allow_loopback_webhooks
        )
        self.approvals = Approvals(self.deps, self.gateway_adapters)
        # QuickBooks Online when its app keys are configured (docs/integrations.md); connecting
        # is the portal's, syncing the worker's (the accounting queue), pushes follow events.
        if accounting is None:
            qbo = QboConfig.from_env(os.environ)
            accounting = QuickBooksOnline(qbo) if qbo is not None else None
        self.accounting = accounting
        self.accounting_webhooks = AccountingWebhooks(self.deps, accounting)
        if accounting is not None:
            self.deps.reactions.register(
                "accounting-online", AccountingReaction(self.deps), ACCOUNTING_TYPES
            )
        # The admin portal's accounts (argon2id passwords; invites go out by the mailer).
        self.portal = PortalAccounts(self.deps, passwords or Argon2Passwords(), self.mailer)

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        key_file: str | Path | None = None,
        secret_key: str | None = None,
        clock: Clock | None = None,
        randomness: Randomness | None = None,
        gateways: dict[str, Gateway] | None = None,
        migrate: bool = True,
        public_url: str | None = None,
        sms: SmsSender | None = None,
        mailer: Mailer | None = None,
        webhook_sender: WebhookSender | None = None,
        allow_loopback_webhooks: bool | None = None,
        catalog: GatewayCatalog | None = None,
        accounting: AccountingClient | None = None,
    ) -> PayHub:
        """Open a database by URL and the master key from ``secret_key``, the
        ``PAYHUB_SECRET_KEY`` environment variable, or a key file (``PAYHUB_KEY_FILE``, by
        default beside the SQLite file; created only for a new database). A key that is not
        the database's own raises ``MasterKeyMismatch``."""
        url = url or os.environ.get("PAYHUB_DATABASE_URL") or DEFAULT_DATABASE_URL
        store = open_store(url)
        try:
            if migrate:
                store.migrate()
            # The database's own key, or MasterKeyMismatch (never a second key file).
            keys = open_master_keys(
                store,
                Path(key_file or os.environ.get("PAYHUB_KEY_FILE") or default_key_file(url)),
                secret_key or os.environ.get("PAYHUB_SECRET_KEY"),
                (clock or SystemClock()).now(),
                display=store.url_for_display,
            )
        except BaseException:
            store.close()
            raise
        return cls(
            store,
            FernetSecretBox(keys),
            clock=clock,
            randomness=randomness,
            gateways=gateways,
            public_url=public_url,
            sms=sms,
            mailer=mailer,
            webhook_sender=webhook_sender,
            allow_loopback_webhooks=allow_loopback_webhooks,
            catalog=catalog,
            accounting=accounting,
        )

    def job_handlers(self) -> dict[str, JobHandler]:
        """The worker's queues and their handlers (the outbox and schedules register here)."""
        handlers: dict[str, JobHandler] = {}
        handlers[OUTBOX_QUEUE] = self.outbox.deliver
        handlers[SCHEDULES_QUEUE] = Runner(self.deps, self.gateway_adapters).handle
        handlers[WEBHOOKS_QUEUE] = self.webhooks.handle
        if self.accounting is not None:
            handlers[ACCOUNTING_QUEUE] = SyncEngine(self.deps, self.accounting).handle
        return handlers

    def close(self) -> None:
        self.redirects.close()  # writes the short-link opens counted in memory
        self.store.close()

    def authenticate(self, api_key: str | None) -> Caller:
        return self._auth.authenticate(api_key)

    def authenticate_cached(self, api_key: str | None) -> Caller | None:
        """As ``authenticate`` from the verified-key cache, without I/O; ``None`` on a miss."""
        return self._auth.cached(api_key)

    def as_provider(self, provider_id: str) -> Caller:
        """In-process use without a key: act as a provider (the operator's trust level)."""
        with self.store.unit_of_work() as uow:
            provider = uow.providers.get(provider_id)
        if provider is None:
            raise NotFound(f"no provider '{provider_id}'")
        return Caller(provider.id, provider.environment, api_key_id="in-process")

    def provider(self, caller: Caller) -> ProviderScope:
        return ProviderScope(
            self.deps,
            caller,
            self.gateway_adapters,
            self.allow_loopback_webhooks,
            self.accounting,
        )

    def gateways(self, environment: Environment) -> list[GatewayInfo]:
        return self.catalog.for_environment(environment)
