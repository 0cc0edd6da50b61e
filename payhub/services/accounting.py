"""The online accounting integration: connecting (portal only), the API's status and sync
calls, the reaction to domain events, and the sync runs the worker carries out.

``AccountingOnline`` (merchant-scoped, ``hub.provider(caller).merchant(ref).accounting_online``):
``status``, ``sync_now``, ``sync_customers``, ``disconnect`` and ``run`` for the API;
``begin_connect`` / ``finish_connect`` for the portal (no API route connects).

``AccountingReaction`` (registered as ``accounting-online`` for ``customer.created``,
``invoice.sent`` and ``invoice.paid``): when the merchant is connected, queues a ``push``
run for the object in the change's own transaction. Best effort: a push that keeps failing
ends as a dead job, and the next sync-now pushes the object anyway.

``SyncEngine.handle`` (the ``accounting`` queue): one run. Every external call is made
outside any database transaction; each object's link is written before its create call
(request id, no remote id) and completed after it, so a run retried after a crash resumes
where it was and never creates anything twice. Counts, errors and the current step are
saved as it goes (progress is readable while it runs). A revoked or expired grant
disconnects with the reason and fails the run; throttling and outages after the adapter's
own retries raise, and the worker tries the job again later.
"""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TypeVar

import attrs
import structlog

from payhub.domain.accounting import (
    RUN_PREFIX,
    STATE_TTL,
    AccessExpired,
    AccountingConnection,
    AccountingRejected,
    AccountingSystem,
    GrantRevoked,
    LinkKind,
    OutgoingCustomer,
    OutgoingInvoice,
    OutgoingItem,
    OutgoingLine,
    OutgoingPayment,
    Pushed,
    RemoteCustomer,
    RemoteEnvironment,
    RemoteItem,
    RemoteLink,
    RunKind,
    RunStatus,
    SyncRun,
    decode_tokens,
    encode_tokens,
    new_connection,
    new_link,
    observed_percent,
    settled_remotely,
    state_digest,
)
from payhub.domain.accounts import Merchant
from payhub.domain.catalog import (
    Product,
    ProductKind,
    clean_description,
    clean_product_name,
    clean_sku,
    clean_unit_price,
)
from payhub.domain.consent import clean_phone
from payhub.domain.customers import Customer, clean_email, clean_name
from payhub.domain.environments import Environment
from payhub.domain.errors import (
    Conflict,
    FieldError,
    NotFound,
    PayHubError,
    Unavailable,
    ValidationError,
)
from payhub.domain.events import CustomerCreated, DomainEvent
from payhub.domain.invoices import Invoice, InvoiceStatus, PaymentSourceKind
from payhub.domain.taxes import Jurisdiction, ObservedTaxRate, clean_postal_code
from payhub.ports import AccountingClient, AccountingSession, Job, UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.events import emit_for
from payhub.services.invoices import settle_externally
from payhub.services.merchants import find_merchant

QUEUE = "accounting"
SYSTEM = AccountingSystem.ONLINE
TYPES = ("customer.created", "invoice.sent", "invoice.paid")
# Change data capture looks back 30 days at most; a first pull starts a little inside that.
CDC_WINDOW = timedelta(days=29)
DEFAULT_CUSTOMER = "~default"
DEFAULT_ITEM = "~default"
log = structlog.get_logger("payhub.accounting")
T = TypeVar("T")


def _environment_of(env: Environment) -> RemoteEnvironment:
    """A sandbox provider connects sandbox companies only, production only real ones."""
    return RemoteEnvironment.SANDBOX if env is Environment.SANDBOX else RemoteEnvironment.PRODUCTION


@attrs.frozen
class ConnectionView:
    connection: AccountingConnection
    last_run: SyncRun | None
    current_run: SyncRun | None


def _start_run(
    uow: UnitOfWork, deps: Deps, merchant_id: str, kind: RunKind, subject: str | None = None
) -> SyncRun:
    """Queue a run (and its job). A run of that kind already waiting is returned instead."""
    latest = uow.accounting.latest_run(merchant_id, SYSTEM)
    if (
        latest is not None
        and latest.kind is kind
        and latest.subject == subject
        and latest.status is RunStatus.QUEUED
    ):
        return latest
    now = deps.clock.now()
    run = SyncRun(deps.new_id(RUN_PREFIX), merchant_id, SYSTEM, kind, RunStatus.QUEUED, now, now)
    run.subject = subject
    uow.accounting.add_run(run)
    uow.jobs.enqueue(
        Job(deps.new_id("job"), QUEUE, {"run_id": run.id, "merchant_id": merchant_id}, now, 0)
    )
    return run


def _or_none(check: Callable[[str | None], str | None], value: str | None) -> str | None:
    """An imported field payhub's own rules accept, else left out (never a failed import)."""
    try:
        return check(value)
    except ValidationError:
        return None


# --- the API and the portal --------------------------------------------------------------------


class AccountingOnline:
    def __init__(
        self, deps: Deps, caller: Caller, reference: str, client: AccountingClient | None
    ) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference
        self._client = client

    def _connection(self, uow: UnitOfWork, merchant: Merchant) -> AccountingConnection:
        found = uow.accounting.get(merchant.id, SYSTEM)
        return found or new_connection(merchant.id, SYSTEM, self._d.clock.now())

    def status(self) -> ConnectionView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            connection = self._connection(uow, merchant)
            latest = uow.accounting.latest_run(merchant.id, SYSTEM)
            finished = uow.accounting.latest_run(merchant.id, SYSTEM, finished=True)
        current = latest if latest is not None and not latest.finished else None
        return ConnectionView(connection, finished, current)

    def run(self, run_id: str) -> SyncRun:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            run = uow.accounting.get_run(merchant.id, run_id)
        if run is None or run.system is not SYSTEM:
            raise NotFound(f"no sync run '{run_id}'")
        return run

    def _start(self, kind: RunKind) -> SyncRun:
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            connection = uow.accounting.get(merchant.id, SYSTEM, for_update=True)
            if connection is None or not connection.connected:
                raise Conflict(
                    "the online accounting system is not connected; connect it in the portal"
                )
            return _start_run(uow, self._d, merchant.id, kind)

    def sync_now(self) -> SyncRun:
        """Push unsynced customers, items and invoices (and payments), then pull status."""
        return self._start(RunKind.SYNC_NOW)

    def import_products(self) -> SyncRun:
        """The company's items become products (linked to one with the same SKU, else the
        same name, when there is one); the portal's "Import products"."""
        return self._start(RunKind.IMPORT_PRODUCTS)

    def sync_customers(self) -> SyncRun:
        """Pull the company's customers (matched on account number), push unsynced ones."""
        return self._start(RunKind.SYNC_CUSTOMERS)

    def disconnect(self) -> ConnectionView:
        """Stop syncing at once: the grant is forgotten (and revoked at Intuit, best effort);
        queued runs find the connection gone and stop. Reconnecting is allowed any time."""
        refresh: str | None = None
        env: RemoteEnvironment | None = None
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            connection = uow.accounting.get(merchant.id, SYSTEM, for_update=True)
            if connection is not None and connection.connected:
                if connection.tokens_sealed:
                    refresh = decode_tokens(
                        self._d.secrets.open(connection.tokens_sealed)
                    ).refresh_token
                env = connection.environment
                connection.disconnect("disconnected by the merchant", self._d.clock.now())
                uow.accounting.put(connection)
        if refresh and env and self._client is not None:
            self._client.revoke(env, refresh)
        return self.status()

    # --- the portal's connect flow ----------------------------------------------------------

    def _require_client(self) -> AccountingClient:
        if self._client is None:
            raise Unavailable("QuickBooks Online is not configured on this server")
        return self._client

    def begin_connect(self) -> str:
        """The address of the system's own sign-in page, with a fresh single-use state."""
        client = self._require_client()
        state = _secrets.token_urlsafe(32)
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            connection = uow.accounting.get(merchant.id, SYSTEM, for_update=True)
            connection = connection or new_connection(merchant.id, SYSTEM, self._d.clock.now())
            connection.state_digest = state_digest(state)
            connection.state_expires_at = self._d.clock.now() + STATE_TTL
            connection.updated_at = self._d.clock.now()
            uow.accounting.put(connection)
        return client.authorization_url(_environment_of(self._caller.environment), state)

    def finish_connect(
        self, state: str, code: str | None, company_id: str | None, error: str | None = None
    ) -> ConnectionView:
        """The sign-in came back: check the state (this merchant's, unexpired, unused), trade
        the code for the grant, read the company, store the tokens sealed."""
        client = self._require_client()
        env = _environment_of(self._caller.environment)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            connection = uow.accounting.by_state(SYSTEM, state_digest(state or ""))
            if (
                connection is None
                or connection.merchant_id != merchant.id
                or connection.state_expires_at is None
                or connection.state_expires_at < now
            ):
                raise Conflict("this sign-in link is unknown, used or expired; connect again")
            connection.state_digest = None
            connection.state_expires_at = None
            uow.accounting.put(connection)  # the state is spent whatever follows
        if error or not code or not company_id:
            raise Conflict(f"QuickBooks did not connect: {error or 'no authorization code'}")
        grant = client.exchange_code(env, code, now)
        company = client.company(AccountingSession(company_id, env, grant.access_token))
        sealed = self._d.secrets.seal(encode_tokens(grant))
        with self._d.store.unit_of_work() as uow:
            connection = uow.accounting.get(merchant.id, SYSTEM, for_update=True)
            assert connection is not None
            if connection.company_id != company.company_id:
                connection.invoice_cursor = None  # another company: its changes from the start
            connection.connect(company, env, sealed, self._d.clock.now())
            uow.accounting.put(connection)
            uow.tax_rates.set_automatic_sales_tax(
                merchant.id, company.automatic_sales_tax, self._d.clock.now()
            )
        return self.status()


# --- the reaction ------------------------------------------------------------------------------


class AccountingReaction:
    """Domain events → push runs for a connected merchant (same transaction as the change)."""

    def __init__(self, deps: Deps) -> None:
        self._d = deps

    def __call__(self, uow: UnitOfWork, event: DomainEvent) -> None:
        if event.merchant_id is None:
            return
        connection = uow.accounting.get(event.merchant_id, SYSTEM)
        if connection is None or not connection.connected:
            return
        if event.type == "customer.created":
            subject = f"customer:{event.object_id}"
        else:
            subject = f"invoice:{event.data.get('invoiceNumber', '')}"
        _start_run(uow, self._d, event.merchant_id, RunKind.PUSH, subject)


class AccountingWebhooks:
    """Intuit's change notifications: verified, then a pull run per connected merchant."""

    def __init__(self, deps: Deps, client: AccountingClient | None) -> None:
        self._d = deps
        self._client = client

    def receive(self, body: bytes, signature: str | None, companies: list[str]) -> int:
        """``companies``: the realm ids the notification names (parsed by the shell).
        Refuses (404-like ``NotFound``) an unsigned or wrongly signed body."""
        if self._client is None or not self._client.verify_webhook(body, signature):
            raise NotFound("no such notification endpoint")  # never says why to a forger
        started = 0
        with self._d.store.unit_of_work() as uow:
            for company_id in sorted(set(companies)):
                for connection in uow.accounting.by_company(SYSTEM, company_id):
                    _start_run(uow, self._d, connection.merchant_id, RunKind.PULL)
                    started += 1
        return started


# --- the worker --------------------------------------------------------------------------------


class _Stop(Exception):
    """The run cannot go on (disconnected, grant gone): it fails with this reason."""


class SyncEngine:
    def __init__(self, deps: Deps, client: AccountingClient) -> None:
        self._d = deps
        self._client = client

    # --- the run's frame --------------------------------------------------------------------

    def handle(self, job: Job) -> None:
        run_id = str(job.payload["run_id"])
        merchant_id = str(job.payload["merchant_id"])
        with self._d.store.unit_of_work() as uow:
            run = uow.accounting.get_run(merchant_id, run_id)
            if run is None or run.finished:
                return
            merchant = uow.merchants.get(merchant_id)
            assert merchant is not None
            run.status = RunStatus.RUNNING
            run.started_at = run.started_at or self._d.clock.now()
            run.updated_at = self._d.clock.now()
            uow.accounting.save_run(run)
        try:
            session = self._session(merchant_id)
            steps: dict[RunKind, Callable[[Merchant, SyncRun, AccountingSession], None]] = {
                RunKind.SYNC_NOW: self._sync_now,
                RunKind.SYNC_CUSTOMERS: self._sync_customers,
                RunKind.PULL: self._pull,
                RunKind.PUSH: self._push,
                RunKind.IMPORT_PRODUCTS: self._import_products,
            }
            steps[run.kind](merchant, run, session)
        except _Stop as stop:
            self._finish(run, RunStatus.FAILED, str(stop))
            return
        except PayHubError:
            self._save(run)  # progress kept; the worker tries the job again later
            raise
        self._finish(run, RunStatus.SUCCEEDED, None)

    def _save(self, run: SyncRun) -> None:
        run.updated_at = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            uow.accounting.save_run(run)

    def _step(self, run: SyncRun, step: str) -> None:
        run.step = step
        self._save(run)

    def _finish(self, run: SyncRun, status: RunStatus, reason: str | None) -> None:
        if reason:
            run.error(reason)
        run.status = status
        run.step = None
        run.finished_at = self._d.clock.now()
        self._save(run)
        log.info("accounting run finished", run_id=run.id, kind=run.kind.value, status=status.value)

    # --- tokens -----------------------------------------------------------------------------

    def _connection(self, merchant_id: str) -> AccountingConnection:
        with self._d.store.unit_of_work(readonly=True) as uow:
            connection = uow.accounting.get(merchant_id, SYSTEM)
        if connection is None or not connection.connected or connection.tokens_sealed is None:
            raise _Stop("the online accounting system is not connected")
        return connection

    def _session(self, merchant_id: str, force_refresh: bool = False) -> AccountingSession:
        connection = self._connection(merchant_id)
        assert connection.tokens_sealed is not None
        assert connection.company_id is not None
        assert connection.environment is not None
        grant = decode_tokens(self._d.secrets.open(connection.tokens_sealed))
        now = self._d.clock.now()
        if force_refresh or not grant.access_fresh(now):
            try:
                grant = self._client.refresh(connection.environment, grant.refresh_token, now)
            except GrantRevoked as e:
                # Another worker may have refreshed first (the token rotated under us): its
                # new grant is stored by now, and is used instead of giving up the grant.
                current = self._connection(merchant_id)
                if current.tokens_sealed != connection.tokens_sealed and current.tokens_sealed:
                    theirs = decode_tokens(self._d.secrets.open(current.tokens_sealed))
                    if theirs.access_fresh(self._d.clock.now()):
                        return AccountingSession(
                            connection.company_id, connection.environment, theirs.access_token
                        )
                self._lose_grant(merchant_id, str(e))
                raise _Stop(f"disconnected: {e}") from e
            sealed = self._d.secrets.seal(encode_tokens(grant))
            with self._d.store.unit_of_work() as uow:  # the rotated refresh token, at once
                fresh = uow.accounting.get(merchant_id, SYSTEM, for_update=True)
                if fresh is None or not fresh.connected:
                    raise _Stop("the online accounting system was disconnected")
                fresh.tokens_sealed = sealed
                fresh.updated_at = self._d.clock.now()
                uow.accounting.put(fresh)
        return AccountingSession(connection.company_id, connection.environment, grant.access_token)

    def _lose_grant(self, merchant_id: str, reason: str) -> None:
        with self._d.store.unit_of_work() as uow:
            connection = uow.accounting.get(merchant_id, SYSTEM, for_update=True)
            if connection is not None and connection.connected:
                connection.disconnect(reason, self._d.clock.now())
                uow.accounting.put(connection)
        log.warning("accounting grant lost", merchant_id=merchant_id)

    def _call(
        self, session: AccountingSession, merchant_id: str, call: Callable[[AccountingSession], T]
    ) -> T:
        """One call; on a refused access token, refresh once and call again."""
        try:
            return call(session)
        except AccessExpired:
            fresh = self._session(merchant_id, force_refresh=True)
            try:
                return call(fresh)
            except AccessExpired as e:
                self._lose_grant(merchant_id, "QuickBooks refuses the refreshed access token")
                raise _Stop("disconnected: QuickBooks refuses the access token") from e
        except GrantRevoked as e:
            self._lose_grant(merchant_id, str(e))
            raise _Stop(f"disconnected: {e}") from e

    # --- links: written before the create, completed after --------------------------------

    def _ensure(
        self,
        run: SyncRun,
        session: AccountingSession,
        kind: LinkKind,
        local_id: str,
        push: Callable[[AccountingSession, RemoteLink], Pushed],
        *,
        changed_at: datetime | None = None,
        counter: str,
    ) -> RemoteLink | None:
        """The object's link, pushing it first when it has none (or is newer than its link:
        an update with its SyncToken). ``None`` when the system refused it (a run error)."""
        merchant_id = run.merchant_id
        with self._d.store.unit_of_work() as uow:
            link = uow.accounting.link(merchant_id, SYSTEM, kind, local_id)
            if (
                link is not None
                and link.done
                and (changed_at is None or changed_at <= link.updated_at)
            ):
                return link
            if link is None:
                link = new_link(merchant_id, kind, local_id, self._d.clock.now())
                uow.accounting.put_link(link)
        creating = not link.done
        try:
            pushed = self._call(session, merchant_id, lambda s: push(s, link))
        except AccountingRejected as e:
            run.error(f"{kind.value} {local_id}: {e.detail}")
            return None
        link.remote_id = pushed.remote_id
        link.sync_token = pushed.sync_token
        link.updated_at = self._d.clock.now()
        try:
            with self._d.store.unit_of_work() as uow:
                uow.accounting.put_link(link)
                if kind is LinkKind.ITEM:
                    product = uow.products.get(merchant_id, local_id)
                    if product is not None and product.accounting_item_ref != pushed.remote_id:
                        product.accounting_item_ref = pushed.remote_id
                        uow.products.save(product)
        except Conflict as e:
            run.error(f"{kind.value} {local_id}: {e.detail}")
            return None
        run.count(f"{counter}Created" if creating else f"{counter}Updated")
        return link

    # --- customers --------------------------------------------------------------------------

    @staticmethod
    def _outgoing_customer(c: Customer) -> OutgoingCustomer:
        return OutgoingCustomer(
            display_name=(c.name.display or c.email or c.id)[:500],
            given_name=c.name.first,
            family_name=c.name.last,
            company_name=c.name.company,
            email=c.email,
            phone=c.phone,
            account_number=c.account_number,
            bill_address=c.billing_address,
        )

    def _customer_link(
        self, run: SyncRun, session: AccountingSession, customer_id: str | None
    ) -> RemoteLink | None:
        if customer_id is None:
            anonymous = OutgoingCustomer(
                "payhub customers", None, None, None, None, None, None, None
            )
            return self._ensure(
                run,
                session,
                LinkKind.CUSTOMER,
                DEFAULT_CUSTOMER,
                lambda s, link: self._client.push_customer(s, anonymous, link),
                counter="customers",
            )
        with self._d.store.unit_of_work(readonly=True) as uow:
            customer = uow.customers.get(run.merchant_id, customer_id)
        if customer is None:
            return None
        out = self._outgoing_customer(customer)
        return self._ensure(
            run,
            session,
            LinkKind.CUSTOMER,
            customer.id,
            lambda s, link: self._client.push_customer(s, out, link),
            changed_at=customer.updated_at,
            counter="customers",
        )

    def _all_customers(self, merchant_id: str) -> Iterator[Customer]:
        after: str | None = None
        while True:
            with self._d.store.unit_of_work(readonly=True) as uow:
                page = uow.customers.list(merchant_id, after, 200)
            yield from page
            if len(page) < 200:
                return
            after = page[-1].id

    def _push_customers(self, run: SyncRun, session: AccountingSession) -> None:
        self._step(run, "pushing customers")
        for customer in self._all_customers(run.merchant_id):
            self._customer_link(run, session, customer.id)
        self._save(run)

    def _pull_customers(self, merchant: Merchant, run: SyncRun, session: AccountingSession) -> None:
        self._step(run, "pulling customers")
        remote = self._call(session, merchant.id, self._client.customers)
        for r in remote:
            self._take_customer(merchant, run, r)
        self._save(run)

    def _take_customer(self, merchant: Merchant, run: SyncRun, r: RemoteCustomer) -> None:
        """Link a remote customer to the local one with its account number, or import it."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            if uow.accounting.link_by_remote(merchant.id, SYSTEM, LinkKind.CUSTOMER, r.remote_id):
                return
            local = (
                uow.customers.get_by_account_number(merchant.id, r.account_number)
                if r.account_number
                else None
            )
            if local is not None:
                link = uow.accounting.link(merchant.id, SYSTEM, LinkKind.CUSTOMER, local.id)
                if link is not None and link.done:
                    run.error(
                        f"customer {r.remote_id}: account {r.account_number} is already linked"
                        f" to customer {link.remote_id}"
                    )
                    return
                uow.accounting.put_link(
                    new_link(merchant.id, LinkKind.CUSTOMER, local.id, now, r.remote_id)
                )
                run.count("customersMatched")
                return
            errors: list[FieldError] = []
            name = clean_name(
                r.given_name,
                r.family_name,
                r.company_name or (None if (r.given_name or r.family_name) else r.display_name),
                errors,
            )
            if errors:
                run.error(f"customer {r.remote_id}: {errors[0].field} {errors[0].message}")
                return
            customer = Customer(
                id=self._d.new_id("cus"),
                merchant_id=merchant.id,
                name=name,
                email=_or_none(clean_email, r.email),
                phone=_or_none(clean_phone, r.phone),
                website=None,
                billing_address=r.bill_address,
                account_number=r.account_number,
                location_id=None,
                created_at=now,
                updated_at=now,
            )
            uow.customers.add(customer)
            # Linked in the same transaction, so the push its event queues finds it linked.
            uow.accounting.put_link(
                new_link(merchant.id, LinkKind.CUSTOMER, customer.id, now, r.remote_id)
            )
            emit_for(
                uow,
                self._d,
                CustomerCreated,
                merchant,
                customer.id,
                self._d.snapshots.customer(customer),
            )
        run.count("customersImported")

    # --- items ------------------------------------------------------------------------------

    def _item_link(
        self,
        run: SyncRun,
        session: AccountingSession,
        product_id: str | None,
        connection: AccountingConnection,
    ) -> RemoteLink | None:
        if product_id is None:
            item = OutgoingItem(
                "payhub sales",
                ProductKind.SERVICE,
                Decimal(0),
                None,
                "Invoice lines without a product",
                True,
                True,
            )
            return self._ensure(
                run,
                session,
                LinkKind.DEFAULT_ITEM,
                DEFAULT_ITEM,
                lambda s, link: self._client.push_item(s, item, link),
                counter="items",
            )
        with self._d.store.unit_of_work(readonly=True) as uow:
            product = uow.products.get(run.merchant_id, product_id)
            category = (
                uow.categories.get(run.merchant_id, product.category_id)
                if product is not None and product.category_id
                else None
            )
        if product is None:
            return None
        out = OutgoingItem(
            name=product.name,
            kind=product.kind,
            unit_price=product.unit_price.amount,
            sku=product.sku,
            description=product.description,
            taxable=product.taxable,
            active=product.active,
            category_name=category.name if category and connection.item_categories else None,
            inventory_start=self._d.clock.now().date(),
        )
        return self._ensure(
            run,
            session,
            LinkKind.ITEM,
            product.id,
            lambda s, link: self._client.push_item(s, out, link),
            changed_at=product.updated_at,
            counter="items",
        )

    def _push_items(
        self, run: SyncRun, session: AccountingSession, connection: AccountingConnection
    ) -> None:
        self._step(run, "pushing items")
        after: str | None = None
        while True:
            with self._d.store.unit_of_work(readonly=True) as uow:
                page = uow.products.list(run.merchant_id, after, 200, include_inactive=True)
            for product in page:
                linked = self._linked(run.merchant_id, LinkKind.ITEM, product.id)
                if product.active or linked:
                    self._item_link(run, session, product.id, connection)
            if len(page) < 200:
                break
            after = page[-1].id
        self._save(run)

    def _linked(self, merchant_id: str, kind: LinkKind, local_id: str) -> bool:
        with self._d.store.unit_of_work(readonly=True) as uow:
            link = uow.accounting.link(merchant_id, SYSTEM, kind, local_id)
        return link is not None and link.done

    # --- invoices and payments --------------------------------------------------------------

    def _push_invoice(
        self,
        run: SyncRun,
        session: AccountingSession,
        number: str,
        connection: AccountingConnection,
    ) -> None:
        with self._d.store.unit_of_work(readonly=True) as uow:
            invoice = uow.invoices.get(run.merchant_id, number)
        if invoice is None or invoice.status in (InvoiceStatus.DRAFT, InvoiceStatus.VOID):
            return
        if connection.home_currency and invoice.currency != connection.home_currency:
            if not self._linked(run.merchant_id, LinkKind.INVOICE, number):
                run.error(
                    f"invoice {number}: refused, it is in {invoice.currency} and the company's"
                    f" home currency is {connection.home_currency} (one currency is assumed)"
                )
                run.count("invoicesRefused")
            return
        link = self._invoice_link(run, session, invoice, connection)
        if link is None or not link.done:
            return
        self._push_payments(run, session, invoice, link)

    def _invoice_link(
        self,
        run: SyncRun,
        session: AccountingSession,
        invoice: Invoice,
        connection: AccountingConnection,
    ) -> RemoteLink | None:
        if self._linked(run.merchant_id, LinkKind.INVOICE, invoice.number):
            with self._d.store.unit_of_work(readonly=True) as uow:
                return uow.accounting.link(
                    run.merchant_id, SYSTEM, LinkKind.INVOICE, invoice.number
                )
        customer = self._customer_link(run, session, invoice.customer_id)
        if customer is None or customer.remote_id is None:
            run.error(f"invoice {invoice.number}: its customer could not be pushed")
            return None
        lines: list[OutgoingLine] = []
        for line in invoice.lines:
            item = self._item_link(run, session, line.product_id, connection)
            if item is None and line.product_id is not None:  # product gone: the shared item
                item = self._item_link(run, session, None, connection)
            if item is None or item.remote_id is None:
                run.error(f"invoice {invoice.number}: an item could not be pushed")
                return None
            lines.append(
                OutgoingLine(
                    item.remote_id,
                    line.description,
                    line.quantity,
                    line.unit_price.amount,
                    line.amount.amount,
                    line.is_taxable,
                )
            )
        out = OutgoingInvoice(
            doc_number=invoice.number,
            customer_remote_id=customer.remote_id,
            txn_date=invoice.created_at.date(),
            due_date=invoice.due_date,
            currency=invoice.currency,
            lines=tuple(lines),
            tax_total=invoice.tax.amount,
            total=invoice.total.amount,
            bill_address=invoice.bill_to,
            ship_address=invoice.ship_to,
            memo=invoice.description,
        )
        computed: list[Pushed] = []

        def push(s: AccountingSession, link: RemoteLink) -> Pushed:
            pushed = self._client.push_invoice(s, out, link)
            computed.append(pushed)
            return pushed

        link = self._ensure(
            run, session, LinkKind.INVOICE, invoice.number, push, counter="invoices"
        )
        if computed and connection.automatic_sales_tax:
            self._observe(run, invoice, computed[0])
        computed_tax = [p.tax_total for p in computed]
        if computed_tax and computed_tax[0] is not None and computed_tax[0] != out.tax_total:
            # Automated sales tax recomputed the tax line: logged and shown, not changed here.
            run.count("taxDifferences")
            run.error(
                f"invoice {invoice.number}: QuickBooks computed tax {computed_tax[0]},"
                f" payhub {out.tax_total}"
            )
            log.info("accounting tax differs", invoice=invoice.number)
        return link

    def _observe(self, run: SyncRun, invoice: Invoice, pushed: Pushed) -> None:
        """With automated sales tax on, the rate the company applied to this invoice's
        address becomes the observed rate of its postal code (tax suggestion, advisory)."""
        address = invoice.ship_to or invoice.bill_to
        if pushed.tax_total is None or address is None or not address.postal_code:
            return
        taxable = sum((ln.amount.amount for ln in invoice.lines if ln.is_taxable), Decimal(0))
        percent = observed_percent(pushed.tax_total, taxable)
        errors: list[FieldError] = []
        code = clean_postal_code(address.postal_code, errors)
        if percent is None or errors:
            return
        observed = ObservedTaxRate(
            id=self._d.new_id("otr"),
            merchant_id=run.merchant_id,
            postal_code=code,
            percent=percent,
            jurisdictions=tuple(Jurisdiction(name, pct) for name, pct in pushed.tax_lines),
            confirmed_at=self._d.clock.now(),
        )
        with self._d.store.unit_of_work() as uow:
            uow.tax_rates.record_observed(observed)
        run.count("taxRatesObserved")

    def _push_payments(
        self, run: SyncRun, session: AccountingSession, invoice: Invoice, link: RemoteLink
    ) -> None:
        assert link.remote_id is not None
        customer = self._customer_link(run, session, invoice.customer_id)
        if customer is None or customer.remote_id is None:
            return
        for payment in invoice.payments:
            if payment.source is PaymentSourceKind.ACCOUNTING_ONLINE:
                continue  # paid there: nothing to record there again
            out = OutgoingPayment(
                customer.remote_id,
                link.remote_id,
                payment.amount.amount,
                payment.created_at.date(),
                payment.id,
            )
            self._ensure(
                run,
                session,
                LinkKind.PAYMENT,
                payment.id,
                self._payment_pusher(out),
                counter="payments",
            )

    def _payment_pusher(
        self, out: OutgoingPayment
    ) -> Callable[[AccountingSession, RemoteLink], Pushed]:
        return lambda s, link: self._client.push_payment(s, out, link)

    def _all_invoices(self, merchant_id: str) -> Iterator[Invoice]:
        after: str | None = None
        while True:
            with self._d.store.unit_of_work(readonly=True) as uow:
                page = uow.invoices.list(merchant_id, after, 200)
            yield from page
            if len(page) < 200:
                return
            after = page[-1].number

    def _push_invoices(
        self, run: SyncRun, session: AccountingSession, connection: AccountingConnection
    ) -> None:
        self._step(run, "pushing invoices")
        for invoice in reversed(list(self._all_invoices(run.merchant_id))):  # oldest first
            self._push_invoice(run, session, invoice.number, connection)
            self._save(run)

    # --- pulling invoice status -------------------------------------------------------------

    def _pull(self, merchant: Merchant, run: SyncRun, session: AccountingSession) -> None:
        self._step(run, "pulling invoice status")
        connection = self._connection(merchant.id)
        started = self._d.clock.now()
        floor = started - CDC_WINDOW
        since = connection.invoice_cursor or connection.connected_at or floor
        since = max(since, floor)
        states = self._call(session, merchant.id, lambda s: self._client.changed_invoices(s, since))
        for state in states:
            if not settled_remotely(state):
                continue
            with self._d.store.unit_of_work() as uow:
                link = uow.accounting.link_by_remote(
                    merchant.id, SYSTEM, LinkKind.INVOICE, state.remote_id
                )
                if link is None:
                    continue
                invoice = uow.invoices.get(merchant.id, link.local_id)
                if invoice is None or invoice.status in (InvoiceStatus.PAID, InvoiceStatus.VOID):
                    continue
                try:
                    settle_externally(
                        uow,
                        self._d,
                        merchant,
                        link.local_id,
                        PaymentSourceKind.ACCOUNTING_ONLINE,
                        state.remote_id,
                    )
                except Conflict as e:
                    run.error(f"invoice {link.local_id}: {e.detail}")
                    continue
            run.count("invoicesMarkedPaid")
        with self._d.store.unit_of_work() as uow:
            fresh = uow.accounting.get(merchant.id, SYSTEM, for_update=True)
            if fresh is not None and fresh.connected:
                fresh.invoice_cursor = started
                fresh.updated_at = self._d.clock.now()
                uow.accounting.put(fresh)
        self._save(run)

    # --- the kinds of run -------------------------------------------------------------------

    def _refresh_company(
        self, merchant: Merchant, run: SyncRun, session: AccountingSession
    ) -> AccountingConnection:
        self._step(run, "reading the company")
        company = self._call(session, merchant.id, self._client.company)
        with self._d.store.unit_of_work() as uow:
            connection = uow.accounting.get(merchant.id, SYSTEM, for_update=True)
            if connection is None or not connection.connected:
                raise _Stop("the online accounting system was disconnected")
            connection.company_name = company.name
            connection.home_currency = company.home_currency
            connection.automatic_sales_tax = company.automatic_sales_tax
            connection.item_categories = company.item_categories
            connection.updated_at = self._d.clock.now()
            uow.accounting.put(connection)
            uow.tax_rates.set_automatic_sales_tax(
                merchant.id, company.automatic_sales_tax, self._d.clock.now()
            )
        return connection

    def _sync_now(self, merchant: Merchant, run: SyncRun, session: AccountingSession) -> None:
        connection = self._refresh_company(merchant, run, session)
        self._push_customers(run, session)
        self._push_items(run, session, connection)
        self._push_invoices(run, session, connection)
        self._pull(merchant, run, session)

    def _sync_customers(self, merchant: Merchant, run: SyncRun, session: AccountingSession) -> None:
        self._pull_customers(merchant, run, session)
        self._push_customers(run, session)

    def _import_products(
        self, merchant: Merchant, run: SyncRun, session: AccountingSession
    ) -> None:
        connection = self._refresh_company(merchant, run, session)
        self._step(run, "importing products")
        for item in self._call(session, merchant.id, self._client.items):
            self._take_item(merchant, run, item, connection.home_currency or "USD")
        self._save(run)

    def _take_item(self, merchant: Merchant, run: SyncRun, item: RemoteItem, currency: str) -> None:
        now = self._d.clock.now()
        errors: list[FieldError] = []
        name = clean_product_name(item.name, errors)
        sku = clean_sku(item.sku, errors)
        description = clean_description(item.description, errors)
        price = clean_unit_price(item.unit_price, currency, errors)
        if errors or price is None:
            first = errors[0] if errors else FieldError("unitPrice", "is not a price")
            run.error(f"item {item.remote_id}: {first.field} {first.message}")
            return
        with self._d.store.unit_of_work() as uow:
            if uow.accounting.link_by_remote(merchant.id, SYSTEM, LinkKind.ITEM, item.remote_id):
                return
            product = uow.products.get_by_sku(merchant.id, sku) if sku else None
            if product is None:
                product = next(
                    (
                        p
                        for p in uow.products.list(merchant.id, None, 500, include_inactive=True)
                        if p.name.casefold() == name.casefold() and p.accounting_item_ref is None
                    ),
                    None,
                )
            if product is not None:
                if uow.accounting.link(merchant.id, SYSTEM, LinkKind.ITEM, product.id):
                    run.error(f"item {item.remote_id}: product {product.id} is already linked")
                    return
                counter = "productsMatched"
            else:
                product = Product(
                    id=self._d.new_id("prod"),
                    merchant_id=merchant.id,
                    name=name,
                    sku=sku,
                    description=description,
                    unit_price=price,
                    kind=item.kind,
                    taxable=item.taxable,
                    category_id=None,
                    active=True,
                    created_at=now,
                    updated_at=now,
                )
                uow.products.add(product)
                counter = "productsImported"
            product.accounting_item_ref = item.remote_id
            uow.products.save(product)
            uow.accounting.put_link(
                new_link(
                    merchant.id, LinkKind.ITEM, product.id, now, item.remote_id, item.sync_token
                )
            )
        run.count(counter)

    def _push(self, merchant: Merchant, run: SyncRun, session: AccountingSession) -> None:
        kind, _, ident = (run.subject or "").partition(":")
        self._step(run, f"pushing {kind}")
        if kind == "customer":
            self._customer_link(run, session, ident)
        elif kind == "invoice" and ident:
            self._push_invoice(run, session, ident, self._connection(merchant.id))
