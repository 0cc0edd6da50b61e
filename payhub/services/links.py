"""Short links: a caller's links (create, list, read, clicks, revoke), the operator's
settings (domains, switches, blocklist, usage) and the public redirect.

Each call is one unit of work. A creation decides everything inside it, after queueing
behind the provider's other creations: the ``clientReference`` repeat, the rolling 24-hour
limits (counted from the links table, so every process shares them) and the new code.
Every call that names a merchant counts one API request for that merchant, whatever its
outcome: a merchant key's calls count for its merchant; a provider key's for the merchant
named by ``merchantReference`` or owning the link addressed, and not at all when none is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import TypeVar

import attrs
import structlog

from payhub.domain.accounts import Merchant
from payhub.domain.environments import Environment
from payhub.domain.errors import (
    Conflict,
    FieldError,
    Forbidden,
    NotFound,
    PayHubError,
    RateLimited,
    Unavailable,
    ValidationError,
)
from payhub.domain.events import ShortLinkRevoked
from payhub.domain.links import (
    CLICK_DAYS_DEFAULT,
    CODE_RANDOM_BYTES,
    MERCHANT_DAILY_LIMIT,
    PAGE_SIZE_DEFAULT,
    PROVIDER_DAILY_LIMIT,
    BlockedDomain,
    ClickTotal,
    LinkFields,
    LinkQuery,
    LinkStatus,
    Resolved,
    ShortLink,
    Target,
    check_click_days,
    check_page,
    clean_domain,
    clean_link_fields,
    clean_revoke_reason,
    clean_search,
    clean_short_domain,
    daily_series,
    host_of,
    looks_like_code,
    new_code,
    parse_target,
    refuse_blocked,
    seconds_until_slot,
    short_url,
    utc_day,
    window_start,
)
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.events import emit
from payhub.services.merchants import find_merchant

log = structlog.get_logger("payhub.links")
T = TypeVar("T")
DOMAIN_SETTING = "short_links.domain."
CODE_ATTEMPTS = 5
HOSTS_TTL_S = 5.0
# How often counted opens are written (PAYHUB_OPENS_FLUSH_SECONDS for a server).
OPENS_FLUSH_S = 1.0


def domain_setting(environment: Environment) -> str:
    return f"{DOMAIN_SETTING}{environment.value.lower()}"


def configured_domains(uow: UnitOfWork) -> dict[Environment, str]:
    stored = uow.link_settings.settings_with_prefix(DOMAIN_SETTING)
    return {
        env: stored[domain_setting(env)] for env in Environment if domain_setting(env) in stored
    }


def publish_revoked(
    uow: UnitOfWork, deps: Deps, link: ShortLink, domain: str | None, clicks: ClickTotal
) -> None:
    """``short_link.revoked`` with the (just revoked) link as the API returns it."""
    now = deps.clock.now()
    url = short_url(domain, link.code) if domain else None
    data = deps.snapshots.short_link(link, url, link.status(now), clicks)
    emit(
        uow,
        deps,
        ShortLinkRevoked,
        provider_id=link.provider_id,
        merchant_id=link.merchant_id,
        object_id=link.code,  # what the API names a link by (GET /api/short-links/{code})
        data=data,
    )


@attrs.frozen
class LinkInput:
    target_url: str
    purpose: str | None = None
    label: str | None = None
    client_reference: str | None = None
    expires_in_days: int | None = None
    expires_at: datetime | None = None
    merchant_reference: str | None = None


@attrs.frozen
class LinkView:
    """A link as a caller sees it: ``short_url`` is ``None`` while no domain is configured."""

    link: ShortLink
    short_url: str | None
    status: LinkStatus
    clicks: ClickTotal


@attrs.frozen
class CreatedLink:
    view: LinkView
    created: bool  # False: the same clientReference and address returned the existing link


@attrs.frozen
class LinkListing:
    views: list[LinkView]
    page: int
    page_size: int
    total: int

    @property
    def has_more(self) -> bool:
        return self.page * self.page_size < self.total


@attrs.frozen
class ClickReport:
    view: LinkView
    days: list[tuple[date, int]]


@attrs.frozen
class Redirect:
    """What the short address answers: ``redirect`` (to ``location``), ``gone`` (revoked or
    expired: 410) or ``missing`` (no such link in this environment: 404)."""

    outcome: str
    location: str | None = None


@attrs.define
class _Meter:
    """The merchant a call is attributed to, once known."""

    merchant_id: str | None = None


class ShortLinks:
    """The short links one caller may reach: a provider key all of its provider's, a merchant
    key only its merchant's."""

    def __init__(self, deps: Deps, caller: Caller) -> None:
        self._d = deps
        self._caller = caller

    # --- helpers ---------------------------------------------------------------------------

    def _metered(self, work: Callable[[UnitOfWork, _Meter], T]) -> T:
        # Opens counted by this process but not yet written are written first, so the
        # counts a caller reads here include every redirect this process answered.
        if len(self._d.open_tally):
            flush_opens(self._d)
        # A merchant key's calls are its merchant's; a provider key's, the named merchant's.
        meter = _Meter(self._caller.merchant_id)
        try:
            with self._d.store.unit_of_work() as uow:
                result = work(uow, meter)
                if meter.merchant_id is not None:
                    uow.api_usage.count(meter.merchant_id, utc_day(self._d.clock.now()))
            return result
        except PayHubError:
            # The refusal rolled its unit of work back; the request still counts.
            if meter.merchant_id is not None:
                with self._d.store.unit_of_work() as uow:
                    uow.api_usage.count(meter.merchant_id, utc_day(self._d.clock.now()))
            raise

    def _named_merchant(self, uow: UnitOfWork, reference: str | None) -> Merchant | None:
        """The merchant a call names, or a merchant key's own; ``None`` for a provider key
        that names none."""
        if reference is not None and reference.strip():
            return find_merchant(uow, self._caller, reference.strip())
        if self._caller.merchant_id is not None:
            own = uow.merchants.get(self._caller.merchant_id)
            if own is None:
                raise NotFound("the merchant of this key no longer exists")
            return own
        return None

    def _link(self, uow: UnitOfWork, code: str, meter: _Meter) -> ShortLink:
        link = (
            uow.short_links.get(self._caller.provider_id, code) if looks_like_code(code) else None
        )
        mine = self._caller.merchant_id is None or (
            link is not None and link.merchant_id == self._caller.merchant_id
        )
        if link is None or not mine:
            raise NotFound(f"no short link '{code}'")
        meter.merchant_id = link.merchant_id
        return link

    def _domain(self, uow: UnitOfWork) -> str | None:
        return uow.link_settings.get_setting(domain_setting(self._caller.environment))

    def _view(
        self, link: ShortLink, domain: str | None, clicks: ClickTotal, now: datetime
    ) -> LinkView:
        return LinkView(
            link, short_url(domain, link.code) if domain else None, link.status(now), clicks
        )

    def _require_enabled(self, uow: UnitOfWork, merchant: Merchant | None) -> None:
        owners = [self._caller.provider_id] + ([merchant.id] if merchant else [])
        switches = uow.link_settings.switches(owners)
        if switches.get(self._caller.provider_id) is False:
            raise Forbidden("short links are switched off for this provider account")
        if merchant is not None and switches.get(merchant.id) is False:
            raise Forbidden(
                f"short links are switched off for merchant '{merchant.external_reference}'"
            )

    # --- create ----------------------------------------------------------------------------

    def create(self, given: LinkInput) -> CreatedLink:
        """201 with a new link, or 200 with the existing one for a repeated
        ``clientReference`` and address."""
        now = self._d.clock.now()

        def work(uow: UnitOfWork, meter: _Meter) -> CreatedLink:
            merchant = self._named_merchant(uow, given.merchant_reference)
            meter.merchant_id = merchant.id if merchant else None
            self._require_enabled(uow, merchant)
            domains = configured_domains(uow)
            domain = domains.get(self._caller.environment)
            if domain is None:
                raise Unavailable(
                    f"no short-link domain is configured for {self._caller.environment.value};"
                    " the operator sets one with: payhub links domain set"
                )
            fields, target = self._validate(uow, given, now, {host_of(d) for d in domains.values()})
            uow.short_links.lock_creations(self._caller.provider_id)
            if fields.client_reference is not None:
                existing = uow.short_links.find_active_by_client_reference(
                    self._caller.provider_id,
                    merchant.id if merchant else None,
                    fields.client_reference,
                    now,
                )
                if existing is not None:
                    if existing.target_url != target.url:
                        raise Conflict(
                            f"clientReference '{fields.client_reference}' is already used by"
                            f" short link {existing.code} with a different address; revoke"
                            " that link or use another clientReference"
                        )
                    totals = uow.short_links.click_totals([existing.id])
                    view = self._view(existing, domain, totals.get(existing.id, ClickTotal()), now)
                    return CreatedLink(view, created=False)
            self._check_limits(uow, merchant, now)
            link = ShortLink(
                id=self._d.new_id("lnk"),
                code=self._new_code(uow),
                provider_id=self._caller.provider_id,
                merchant_id=merchant.id if merchant else None,
                merchant_reference=merchant.external_reference if merchant else None,
                environment=self._caller.environment,
                target_url=target.url,
                target_host=target.host,
                purpose=fields.purpose,
                label=fields.label,
                client_reference=fields.client_reference,
                created_at=now,
                created_by=self._caller.api_key_id,
                expires_at=fields.expires_at,
            )
            uow.short_links.add(link)
            return CreatedLink(self._view(link, domain, ClickTotal(), now), created=True)

        return self._metered(work)

    def _validate(
        self, uow: UnitOfWork, given: LinkInput, now: datetime, own_hosts: set[str]
    ) -> tuple[LinkFields, Target]:
        """Every field checked, so one 400 names every field at fault."""
        errors: list[FieldError] = []
        fields: LinkFields | None = None
        target: Target | None = None
        try:
            fields = clean_link_fields(
                now,
                purpose=given.purpose,
                label=given.label,
                client_reference=given.client_reference,
                expires_in_days=given.expires_in_days,
                expires_at=given.expires_at,
            )
        except ValidationError as e:
            errors += e.fields
        try:
            target = parse_target(given.target_url, own_hosts)
            refuse_blocked(target, uow.link_settings.blocked_among(target.domains()))
        except ValidationError as e:
            errors += e.fields
        if errors or fields is None or target is None:
            raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
        return fields, target

    def _check_limits(self, uow: UnitOfWork, merchant: Merchant | None, now: datetime) -> None:
        since = window_start(now)
        refusals: list[tuple[int, str]] = []
        scopes: list[tuple[dict[str, str], int, str]] = [
            ({"provider_id": self._caller.provider_id}, PROVIDER_DAILY_LIMIT, "provider")
        ]
        if merchant is not None:
            scopes.insert(0, ({"merchant_id": merchant.id}, MERCHANT_DAILY_LIMIT, "merchant"))
        for owner, limit, name in scopes:
            count = uow.short_links.count_created(since, **owner)
            if count < limit:
                continue
            oldest = uow.short_links.nth_created(since, count - limit + 1, **owner)
            wait = seconds_until_slot(count, limit, oldest, now)
            if wait is not None:
                refusals.append((wait, f"{limit:,} short links per {name} in 24 hours"))
        if refusals:
            wait = max(w for w, _ in refusals)
            reached = " and ".join(what for _, what in refusals)
            raise RateLimited(
                f"the creation limit of {reached} is reached; a slot frees in {wait} s", wait
            )

    def _new_code(self, uow: UnitOfWork) -> str:
        for _ in range(CODE_ATTEMPTS):
            try:
                code = new_code(self._d.randomness.token_bytes(CODE_RANDOM_BYTES))
            except ValueError:
                continue
            if not uow.short_links.code_taken(code):
                return code
        raise RuntimeError("could not draw an unused short-link code")

    # --- read ------------------------------------------------------------------------------

    def list(
        self,
        merchant_reference: str | None = None,
        status: str | None = None,
        purpose: str | None = None,
        search: str | None = None,
        page: int = 1,
        page_size: int = PAGE_SIZE_DEFAULT,
    ) -> LinkListing:
        """Newest first, one page of ``page_size`` (1 to 200)."""
        now = self._d.clock.now()

        def work(uow: UnitOfWork, meter: _Meter) -> LinkListing:
            merchant = self._named_merchant(uow, merchant_reference)
            meter.merchant_id = merchant.id if merchant else None
            errors: list[FieldError] = []
            wanted: LinkStatus | None = None
            text: str | None = None
            try:
                check_page(page, page_size)
            except ValidationError as e:
                errors += e.fields
            try:
                wanted = LinkStatus.parse(status) if status and status.strip() else None
            except ValidationError as e:
                errors += e.fields
            try:
                text = clean_search(search)
            except ValidationError as e:
                errors += e.fields
            if errors:
                raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
            query = LinkQuery(
                provider_id=self._caller.provider_id,
                now=now,
                merchant_id=merchant.id if merchant else None,
                status=wanted,
                purpose=purpose.strip() if purpose and purpose.strip() else None,
                search=text,
            )
            total = uow.short_links.count(query)
            rows = uow.short_links.list(query, offset=(page - 1) * page_size, limit=page_size)
            totals = uow.short_links.click_totals([r.id for r in rows])
            domain = self._domain(uow)
            views = [self._view(r, domain, totals.get(r.id, ClickTotal()), now) for r in rows]
            return LinkListing(views, page, page_size, total)

        return self._metered(work)

    def get(self, code: str) -> LinkView:
        """One link with its click count and last click."""
        now = self._d.clock.now()

        def work(uow: UnitOfWork, meter: _Meter) -> LinkView:
            link = self._link(uow, code, meter)
            totals = uow.short_links.click_totals([link.id])
            return self._view(link, self._domain(uow), totals.get(link.id, ClickTotal()), now)

        return self._metered(work)

    def clicks(self, code: str, days: int = CLICK_DAYS_DEFAULT) -> ClickReport:
        """The running total and the opens of each of the last ``days`` UTC days (today
        included, oldest first); days without opens are 0."""
        now = self._d.clock.now()

        def work(uow: UnitOfWork, meter: _Meter) -> ClickReport:
            link = self._link(uow, code, meter)
            check_click_days(days)
            first = utc_day(now) - timedelta(days=days - 1)
            per_day = uow.short_links.daily_opens(link.id, first)
            totals = uow.short_links.click_totals([link.id])
            view = self._view(link, self._domain(uow), totals.get(link.id, ClickTotal()), now)
            return ClickReport(view, daily_series(per_day, now, days))

        return self._metered(work)

    # --- revoke ----------------------------------------------------------------------------

    def revoke(self, code: str, reason: str | None = None) -> LinkView:
        """Stop the link at once. Safe to repeat: the first revocation's time and reason
        are kept. Counts stay readable."""
        now = self._d.clock.now()

        def work(uow: UnitOfWork, meter: _Meter) -> LinkView:
            link = self._link(uow, code, meter)
            cleaned = clean_revoke_reason(reason)
            revoked = link.revoked_at is None and uow.short_links.revoke(link.id, now, cleaned)
            if revoked:
                link.revoked_at, link.revoke_reason = now, cleaned
            totals = uow.short_links.click_totals([link.id])
            clicks = totals.get(link.id, ClickTotal())
            if revoked:
                publish_revoked(uow, self._d, link, self._domain(uow), clicks)
            return self._view(link, self._domain(uow), clicks, now)

        view = self._metered(work)
        # After the commit (see FreshCache.begin): this process stops redirecting at once,
        # other servers within LINK_TTL_S.
        self._d.link_cache.invalidate(_cache_key(view.link.environment, view.link.code))
        return view


# --- the public redirect -------------------------------------------------------------------


class ShortHosts:
    """Which short-link host serves which environment, cached for a few seconds.

    Every request to the server is checked against this map, so it is read from the
    database at most once per ``HOSTS_TTL_S`` (and at once after a change made through this
    hub); a change made by another process (the CLI) is seen within that time.
    """

    def __init__(self, deps: Deps, ttl_s: float = HOSTS_TTL_S) -> None:
        self._d = deps
        self._ttl = ttl_s
        self._lock = threading.Lock()
        self._hosts: dict[str, Environment] = {}
        self._read_at: float | None = None

    @property
    def stale(self) -> bool:
        read_at = self._read_at
        return read_at is None or time.monotonic() - read_at > self._ttl

    def refresh(self) -> None:
        with self._d.store.unit_of_work(readonly=True) as uow:
            domains = configured_domains(uow)
        hosts = {domain: env for env, domain in domains.items()}
        with self._lock:
            self._hosts = hosts
            self._read_at = time.monotonic()

    def invalidate(self) -> None:
        with self._lock:
            self._read_at = None

    def environment_for(self, host: str) -> Environment | None:
        """The environment whose short-link domain ``host`` (a Host header) is, if any."""
        if self.stale:
            self.refresh()
        return self.lookup(host)

    def lookup(self, host: str) -> Environment | None:
        """As ``environment_for``, from the cache as it is (for callers that refresh it)."""
        host = host.strip().lower()
        if host.endswith((":443", ":80")):
            host = host.rsplit(":", 1)[0]
        return self._hosts.get(host)


class Redirects:
    """``GET https://<short-link domain>/<code>``, answered from a cache of links.

    A link read from the database is trusted for ``LINK_TTL_S`` seconds (``Deps.link_cache``);
    expiry is checked against the clock on every open, a revocation through this process
    drops the entry at once, and one made elsewhere is seen within ``LINK_TTL_S``. Unknown
    codes are never cached (a link made by another server resolves at once). A person's open
    is counted in memory (``Deps.open_tally``) and written in batches, one unit of work per
    ``OPENS_FLUSH_S`` for every link and day opened meanwhile, by a background thread; reads
    of the counts through this process flush first, and ``close`` writes what is left.
    """

    def __init__(self, deps: Deps, hosts: ShortHosts, flush_every_s: float = OPENS_FLUSH_S) -> None:
        self._d = deps
        self.hosts = hosts
        self._every = flush_every_s
        self._flusher: threading.Thread | None = None
        self._stop = threading.Event()
        self._start_lock = threading.Lock()

    def follow_cached(self, environment: Environment, code: str, counted: bool) -> Redirect | None:
        """The answer from the cache, without I/O; ``None`` when the link must be read."""
        found: Resolved | None = self._d.link_cache.get(_cache_key(environment, code))
        return None if found is None else self._answer(found, counted)

    def follow(self, environment: Environment, code: str, counted: bool) -> Redirect:
        if not looks_like_code(code):
            return Redirect("missing")
        key = _cache_key(environment, code)
        found: Resolved | None = self._d.link_cache.get(key)
        if found is None:
            token = self._d.link_cache.begin()
            with self._d.store.unit_of_work(readonly=True) as uow:
                found = uow.short_links.resolve(code, environment)
            if found is None:
                return Redirect("missing")
            self._d.link_cache.put(key, found, token)
        return self._answer(found, counted)

    def _answer(self, found: Resolved, counted: bool) -> Redirect:
        now = self._d.clock.now()
        if found.revoked_at is not None or (
            found.expires_at is not None and found.expires_at <= now
        ):
            return Redirect("gone")
        if counted:
            self._d.open_tally.add((found.id, utc_day(now)), now)
            if self._flusher is None:
                self._start_flusher()
        return Redirect("redirect", found.target_url)

    def _start_flusher(self) -> None:
        with self._start_lock:
            if self._flusher is None and not self._stop.is_set():
                self._flusher = threading.Thread(
                    target=self._flush_forever, name="payhub-link-opens", daemon=True
                )
                self._flusher.start()

    def _flush_forever(self) -> None:
        while not self._stop.wait(self._every):
            try:
                flush_opens(self._d)
            except Exception:  # kept in the tally; the next pass retries
                log.exception("writing short-link opens failed; retrying")

    def flush(self) -> int:
        """Write the opens counted so far; returns how many."""
        return flush_opens(self._d)

    def close(self) -> None:
        """Stop the background writer and write what is left (a clean shutdown loses none)."""
        self._stop.set()
        if self._flusher is not None:
            self._flusher.join(timeout=10)
        try:
            flush_opens(self._d)
        except Exception:
            log.exception("short-link opens could not be written at shutdown")


def _cache_key(environment: Environment, code: str) -> str:
    return f"{environment.value}:{code}"


def flush_opens(deps: Deps) -> int:
    """Write the counted opens in one unit of work (put back if it fails); returns how many."""
    tally = deps.open_tally
    with tally.flushing:
        batch = tally.take()
        if not batch:
            return 0
        try:
            with deps.store.unit_of_work() as uow:
                for (link_id, day), (opens, latest) in sorted(batch.items()):
                    uow.short_links.record_open(link_id, day, latest, opens)
        except BaseException:
            tally.put_back(batch)
            raise
    return sum(opens for opens, _ in batch.values())


# --- the operator's side -------------------------------------------------------------------


@attrs.frozen
class BlockResult:
    domain: str
    added: bool
    links_revoked: int


@attrs.frozen
class SwitchState:
    provider_id: str
    merchant_reference: str | None
    enabled: bool


@attrs.frozen
class UsageLine:
    """Short-link API requests of one merchant: today, the last 7 days and the last ``days``."""

    provider_id: str
    merchant_reference: str
    today: int
    last_7_days: int
    last_days: int
    days: int


class LinkAdmin:
    """The operator's short-link controls (CLI only, never over HTTP)."""

    def __init__(self, deps: Deps, hosts: ShortHosts) -> None:
        self._d = deps
        self._hosts = hosts

    def set_domain(self, environment: Environment, domain: str) -> str:
        """Serve ``environment``'s short links on ``domain``; the two environments never
        share one."""
        cleaned = clean_short_domain(domain)
        with self._d.store.unit_of_work() as uow:
            for env, other in configured_domains(uow).items():
                if env is not environment and host_of(other) == host_of(cleaned):
                    raise ValidationError.for_field(
                        "domain",
                        f"{cleaned} already serves {env.value} short links; sandbox and"
                        " production need different domains",
                    )
            uow.link_settings.put_setting(domain_setting(environment), cleaned, self._d.clock.now())
        self._hosts.invalidate()
        return cleaned

    def clear_domain(self, environment: Environment) -> None:
        with self._d.store.unit_of_work() as uow:
            uow.link_settings.put_setting(domain_setting(environment), None, self._d.clock.now())
        self._hosts.invalidate()

    def domains(self) -> dict[Environment, str | None]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            found = configured_domains(uow)
        return {env: found.get(env) for env in Environment}

    def switch(
        self, provider_id: str, enabled: bool, merchant_reference: str | None = None
    ) -> SwitchState:
        """Switch short links on or off for a provider account or one of its merchants.
        Off refuses new links (403); existing ones keep working and stay readable."""
        with self._d.store.unit_of_work() as uow:
            provider = uow.providers.get(provider_id)
            if provider is None:
                raise NotFound(f"no provider '{provider_id}'")
            owner = provider.id
            if merchant_reference is not None:
                merchant = uow.merchants.get_by_reference(provider.id, merchant_reference)
                if merchant is None:
                    raise NotFound(f"provider {provider.id} has no merchant '{merchant_reference}'")
                owner = merchant.id
            uow.link_settings.set_switch(owner, enabled, self._d.clock.now())
        return SwitchState(provider_id, merchant_reference, enabled)

    def block(self, domain: str, reason: str | None = None) -> BlockResult:
        """Refuse new links to ``domain`` (and its subdomains) and revoke the existing ones."""
        cleaned = clean_domain(domain)
        note = (reason or "").strip()[:200] or None
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            added = uow.link_settings.block(cleaned, note, now)
            why = f"domain {cleaned} blocked for abuse"
            hit = uow.short_links.unrevoked_on_domain(cleaned)
            revoked = uow.short_links.revoke_on_domain(cleaned, now, why)
            domains = configured_domains(uow)
            totals = uow.short_links.click_totals([link.id for link in hit])
            for link in hit:
                link.revoked_at, link.revoke_reason = now, why
                clicks = totals.get(link.id, ClickTotal())
                publish_revoked(uow, self._d, link, domains.get(link.environment), clicks)
        self._d.link_cache.invalidate()
        return BlockResult(cleaned, added, revoked)

    def unblock(self, domain: str) -> bool:
        """Allow new links to ``domain`` again (revoked links stay revoked)."""
        cleaned = clean_domain(domain)
        with self._d.store.unit_of_work() as uow:
            return uow.link_settings.unblock(cleaned)

    def blocklist(self) -> list[BlockedDomain]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return uow.link_settings.blocklist()

    def usage(self, provider_id: str | None = None, days: int = 30) -> list[UsageLine]:
        """API requests per merchant over the last ``days`` UTC days (today included)."""
        if not 1 <= days <= 366:
            raise ValidationError.for_field("days", "must be between 1 and 366")
        today = utc_day(self._d.clock.now())
        first = today - timedelta(days=days - 1)
        week = today - timedelta(days=6)
        with self._d.store.unit_of_work(readonly=True) as uow:
            records = uow.api_usage.since(first, provider_id)
        lines: dict[tuple[str, str], list[int]] = {}
        for r in records:
            sums = lines.setdefault((r.provider_id, r.merchant_reference), [0, 0, 0])
            sums[0] += r.requests if r.day == today else 0
            sums[1] += r.requests if r.day >= week else 0
            sums[2] += r.requests
        return [
            UsageLine(provider, reference, today_n, week_n, all_n, days)
            for (provider, reference), (today_n, week_n, all_n) in lines.items()
        ]
