"""Outbound webhooks: endpoint management, the dispatch of events, and delivery by the worker.

Dispatch (``dispatch``) runs inside the unit of work of the change that caused the event:
one delivery row and one worker job per endpoint that wants it, committed with the change
(a transactional outbox). Deliveries of one object to one endpoint form a chain: only the
oldest open one has a job; the others wait and are released in order when it finishes
(delivered, given up or cancelled), so a receiver sees one object's events in order.

Delivery (``Deliverer.handle``, the ``webhooks`` queue) is at least once:

1. In one transaction the delivery is claimed (``attempts`` + 1). Only the job named in
   ``job_id`` may claim it, so a stale duplicate job does nothing.
2. The POST is made outside any transaction (``WebhookSender``: 15 s, no redirects, the
   resolved address checked).
3. In a second transaction the outcome is recorded in the attempt log: delivered (any 2xx),
   or a new job at the schedule's next step (``RETRY_SCHEDULE``, or the receiver's
   ``Retry-After`` on 429/503), or failed after the eighth attempt.

A worker that dies between 1 and 3 leaves the job leased; when the lease expires the job
runs again and the event is sent again (the receiver dedupes on ``webhook-id``, the event
id). An endpoint failing without a success for ``DISABLE_AFTER`` is disabled and its alert
address is emailed.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from datetime import datetime, timedelta

import attrs
import structlog

from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict, NotFound, ValidationError
from payhub.domain.events import TYPES as EVENT_TYPES
from payhub.domain.events import DomainEvent
from payhub.domain.messaging import OutgoingEmail
from payhub.domain.webhooks import (
    SECRET_BYTES,
    DeliveryAttempt,
    DeliveryStatus,
    EventRecord,
    WebhookDelivery,
    WebhookEndpoint,
    check_event_types,
    check_overlap,
    check_url,
    clean_description,
    clean_email,
    collect,
    delivered,
    event_body,
    new_secret,
    next_attempt_delay,
    parse_retry_after,
    should_disable,
    signed_headers,
)
from payhub.ports import Job, Mailer, UnitOfWork, WebhookResponse, WebhookSender
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of

QUEUE = "webhooks"
# Finished deliveries (and their attempt log) are kept as long as events are (GET /api/events).
HISTORY = timedelta(days=30)
log = structlog.get_logger("payhub.webhooks")

# The event types an endpoint may subscribe to; set at composition from the events catalogue
# (empty: any dotted name is accepted).
KnownTypes = Callable[[], frozenset[str]]


# --- dispatch (inside the caller's unit of work) -------------------------------------------


def _schedule(uow: UnitOfWork, deps: Deps, delivery: WebhookDelivery, due: datetime) -> None:
    job = Job(deps.new_id("job"), QUEUE, {"delivery_id": delivery.id}, due, 0)
    uow.jobs.enqueue(job)
    delivery.job_id = job.id
    delivery.next_attempt_at = due
    delivery.status = DeliveryStatus.PENDING


@attrs.frozen
class Sendable:
    """An event as it is sent: its id, type, object, merchant and the exact signed body."""

    event_id: str
    event_type: str
    object_id: str
    merchant_id: str | None
    body: str

    @classmethod
    def of_event(cls, event: EventRecord) -> Sendable:
        return cls(event.id, event.type, event.object_id, event.merchant_id, event_body(event))

    @classmethod
    def of_delivery(cls, d: WebhookDelivery) -> Sendable:
        return cls(d.event_id, d.event_type, d.object_id, d.merchant_id, d.body)


def enqueue_delivery(
    uow: UnitOfWork, deps: Deps, endpoint: WebhookEndpoint, event: Sendable
) -> WebhookDelivery:
    """One delivery of an event to an endpoint, behind any open one for the same object."""
    last_seq = uow.webhooks.lock_chain(endpoint.id, event.object_id)
    behind = uow.webhooks.has_open(endpoint.id, event.object_id)
    now = deps.clock.now()
    delivery = WebhookDelivery(
        id=deps.new_id("whd"),
        endpoint_id=endpoint.id,
        provider_id=endpoint.provider_id,
        merchant_id=event.merchant_id,
        event_id=event.event_id,
        event_type=event.event_type,
        object_id=event.object_id,
        seq=last_seq + 1,
        body=event.body,
        status=DeliveryStatus.WAITING,
        created_at=now,
        updated_at=now,
    )
    if not behind:
        _schedule(uow, deps, delivery, now)
    uow.webhooks.add_delivery(delivery)
    return delivery


def dispatch(uow: UnitOfWork, deps: Deps, event: EventRecord) -> list[WebhookDelivery]:
    """Queue the event for every enabled endpoint of its provider that wants it."""
    sendable = Sendable.of_event(event)
    return [
        enqueue_delivery(uow, deps, endpoint, sendable)
        for endpoint in uow.webhooks.enabled_endpoints(event.provider_id)
        if endpoint.wants(event.type, event.merchant_id)
    ]


def record_of(event: DomainEvent) -> EventRecord:
    return EventRecord(
        id=event.id,
        type=event.type,
        occurred_at=event.created_at,
        provider_id=event.provider_id,
        merchant_id=event.merchant_id,
        object_id=event.object_id,
        data=event.data,
    )


class WebhookReaction:
    """The ``webhooks`` reaction: every published event is queued for the endpoints that
    want it, in the change's own transaction (registered in ``PayHub``)."""

    def __init__(self, deps: Deps) -> None:
        self._d = deps

    def __call__(self, uow: UnitOfWork, event: DomainEvent) -> None:
        dispatch(uow, self._d, record_of(event))


def purge_history(uow: UnitOfWork, deps: Deps) -> int:
    """Forget deliveries finished more than ``HISTORY`` ago, with their attempts (the
    worker's housekeeping); open ones are kept whatever their age."""
    return uow.webhooks.purge_finished_before(deps.clock.now() - HISTORY)


def _release_next(uow: UnitOfWork, deps: Deps, endpoint_id: str, object_id: str) -> None:
    """The chain's head finished: give the next waiting delivery its job."""
    uow.webhooks.lock_chain(endpoint_id, object_id)
    following = uow.webhooks.next_waiting(endpoint_id, object_id)
    if following is not None:
        _schedule(uow, deps, following, deps.clock.now())
        following.updated_at = deps.clock.now()
        uow.webhooks.save_delivery(following)


def _finish(uow: UnitOfWork, deps: Deps, delivery: WebhookDelivery, status: DeliveryStatus) -> None:
    now = deps.clock.now()
    delivery.status = status
    delivery.finished_at = now
    delivery.updated_at = now
    delivery.next_attempt_at = None
    uow.webhooks.save_delivery(delivery)
    _release_next(uow, deps, delivery.endpoint_id, delivery.object_id)


# --- delivery (the worker's ``webhooks`` queue) --------------------------------------------


@attrs.frozen
class _Claim:
    delivery: WebhookDelivery
    url: str | None  # None: the address no longer passes the rules
    refusal: str | None
    secrets: tuple[str, ...]
    allow_loopback: bool


def loopback_allowed(setting: bool, environment: Environment) -> bool:
    """The test-only loopback setting never applies to production providers."""
    return setting and environment is Environment.SANDBOX


def _health_changes(endpoint: WebhookEndpoint, ok: bool, now: datetime) -> bool:
    """Whether this outcome changes the endpoint's failing streak or disables it."""
    if ok:
        return endpoint.failing_since is not None
    return endpoint.failing_since is None or (
        endpoint.enabled and should_disable(endpoint.failing_since, now)
    )


class Deliverer:
    """The ``webhooks`` queue's handler: POSTs deliveries and sends disabled-endpoint notices."""

    def __init__(
        self, deps: Deps, sender: WebhookSender, mailer: Mailer, allow_loopback: bool = False
    ) -> None:
        self._d = deps
        self._sender = sender
        self._mailer = mailer
        self._allow_loopback = allow_loopback

    def handle(self, job: Job) -> None:
        if "notice_endpoint_id" in job.payload:
            self._notice(job)
            return
        claim = self._claim(job)
        if claim is None:
            return
        d = claim.delivery
        if claim.url is None:
            response = WebhookResponse(None, 0, error=f"refused: {claim.refusal}")
        else:
            body = d.body.encode()
            stamp = int(self._d.clock.now().timestamp())
            headers = signed_headers(claim.secrets, d.event_id, stamp, body)
            response = self._sender.post(
                claim.url, headers, body, allow_loopback=claim.allow_loopback
            )
        self._record(job, d, response)

    def _claim(self, job: Job) -> _Claim | None:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            d = uow.webhooks.get_delivery(str(job.payload["delivery_id"]), for_update=True)
            if d is None or d.status is not DeliveryStatus.PENDING or d.job_id != job.id:
                return None
            endpoint = uow.webhooks.get_endpoint(d.provider_id, d.endpoint_id)
            if endpoint is None or not endpoint.enabled:
                d.last_error = "endpoint deleted" if endpoint is None else "endpoint disabled"
                _finish(uow, self._d, d, DeliveryStatus.CANCELLED)
                return None
            allow = False
            if self._allow_loopback:  # tests only: read the provider's environment
                provider = uow.providers.get(d.provider_id)
                allow = provider is not None and loopback_allowed(True, provider.environment)
            url: str | None
            refusal = None
            try:
                url = check_url(endpoint.url, allow_loopback=allow)
            except ValidationError as e:
                url, refusal = None, e.detail
            secrets = [self._d.secrets.open(endpoint.secret_sealed).decode()]
            if endpoint.previous_secret_live(now) and endpoint.previous_secret_sealed:
                secrets.append(self._d.secrets.open(endpoint.previous_secret_sealed).decode())
            d.attempts += 1
            d.attempt_started_at = now
            d.updated_at = now
            uow.webhooks.save_delivery(d)
        return _Claim(d, url, refusal, tuple(secrets), allow)

    def _record(self, job: Job, claimed: WebhookDelivery, response: WebhookResponse) -> None:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            d = uow.webhooks.get_delivery(claimed.id, for_update=True)
            if d is None or d.status is not DeliveryStatus.PENDING or d.job_id != job.id:
                return
            # Read without a lock: deliveries to one endpoint record side by side; the row is
            # locked only when its health changes (below).
            endpoint = uow.webhooks.get_endpoint(d.provider_id, d.endpoint_id)
            ok = delivered(response.status)
            delay = None
            if not ok:
                wait = parse_retry_after(response.retry_after, now)
                delay = next_attempt_delay(d.attempts, response.status, wait)
            if ok:
                outcome = "delivered"
            elif endpoint is None or not endpoint.enabled:
                outcome = "cancelled"
            elif delay is None or should_disable(endpoint.failing_since, now):
                outcome = "failed"  # the last attempt, or the one that disables the endpoint
            else:
                outcome = "retrying"
            next_at = now + delay if outcome == "retrying" and delay is not None else None
            uow.webhooks.add_attempt(
                DeliveryAttempt(
                    id=self._d.new_id("wha"),
                    delivery_id=d.id,
                    endpoint_id=d.endpoint_id,
                    event_id=d.event_id,
                    event_type=d.event_type,
                    attempt=d.attempts,
                    started_at=d.attempt_started_at or now,
                    duration_ms=response.duration_ms,
                    status_code=response.status,
                    error=response.error,
                    outcome=outcome,
                    next_attempt_at=next_at,
                )
            )
            d.last_status_code = response.status
            d.last_error = response.error or (
                None if ok else f"HTTP {response.status}" if response.status else None
            )
            log.info(
                "webhook attempt",
                delivery_id=d.id,
                endpoint_id=d.endpoint_id,
                event_type=d.event_type,
                attempt=d.attempts,
                status=response.status,
                outcome=outcome,
            )
            if endpoint is not None and _health_changes(endpoint, ok, now):
                locked = uow.webhooks.get_endpoint(d.provider_id, d.endpoint_id, for_update=True)
                if locked is not None:
                    self._track_health(uow, locked, ok, now)
            if ok:
                _finish(uow, self._d, d, DeliveryStatus.DELIVERED)
            elif outcome == "cancelled":
                _finish(uow, self._d, d, DeliveryStatus.CANCELLED)
            elif next_at is not None:
                _schedule(uow, self._d, d, next_at)
                d.updated_at = now
                uow.webhooks.save_delivery(d)
            else:
                _finish(uow, self._d, d, DeliveryStatus.FAILED)

    def _track_health(
        self, uow: UnitOfWork, endpoint: WebhookEndpoint, ok: bool, now: datetime
    ) -> None:
        """A success clears the failing streak; failing for days disables the endpoint."""
        if ok:
            if endpoint.failing_since is not None:
                endpoint.failing_since = None
                uow.webhooks.save_endpoint(endpoint)
            return
        if endpoint.failing_since is None:
            endpoint.failing_since = now
            uow.webhooks.save_endpoint(endpoint)
        elif endpoint.enabled and should_disable(endpoint.failing_since, now):
            endpoint.enabled = False
            endpoint.disabled_reason = (
                f"every delivery failed since {endpoint.failing_since:%Y-%m-%d %H:%M} UTC"
            )
            endpoint.updated_at = now
            uow.webhooks.save_endpoint(endpoint)
            notice = {"notice_endpoint_id": endpoint.id, "provider_id": endpoint.provider_id}
            uow.jobs.enqueue(Job(self._d.new_id("job"), QUEUE, notice, now, 0))
            log.warning("webhook endpoint disabled", endpoint_id=endpoint.id)

    def _notice(self, job: Job) -> None:
        """Email the endpoint's alert address that it was disabled (same Message-ID on a
        retry, so a resend after a crash is recognisable)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            endpoint = uow.webhooks.get_endpoint(
                str(job.payload["provider_id"]), str(job.payload["notice_endpoint_id"])
            )
        if endpoint is None or endpoint.alert_email is None:
            return
        self._mailer.send(
            OutgoingEmail(
                message_id=f"{job.id}.webhooks@payhub",
                to=endpoint.alert_email,
                subject="payhub: a webhook endpoint was disabled",
                body=(
                    f"Your webhook endpoint {endpoint.id} ({endpoint.url}) was disabled:"
                    f" {endpoint.disabled_reason}.\n\nFix the receiver, then enable the"
                    " endpoint again (PATCH /api/webhook-endpoints/{id} with"
                    ' {"enabled": true}) and resend what it missed (GET /api/events,'
                    " POST /api/webhook-endpoints/{id}/resend).\n"
                ),
            )
        )


# --- management (the API and the CLI) -------------------------------------------------------


@attrs.frozen
class EndpointInput:
    url: str
    event_types: list[str]
    description: str | None = None
    merchant_reference: str | None = None
    alert_email: str | None = None


@attrs.frozen
class EndpointPatch:
    """Fields to change; ``None`` leaves one as it is (``description=""`` clears it)."""

    url: str | None = None
    event_types: list[str] | None = None
    description: str | None = None
    alert_email: str | None = None
    enabled: bool | None = None


@attrs.frozen
class EndpointView:
    endpoint: WebhookEndpoint
    merchant_reference: str | None
    secret: str | None = None  # only right after creation or rotation


class WebhookEndpoints:
    """A caller's endpoints. Provider keys manage all of the provider's; a merchant key only
    those limited to its merchant, and what it creates is limited to its merchant."""

    def __init__(
        self,
        deps: Deps,
        caller: Caller,
        *,
        allow_loopback: bool = False,
        known_types: KnownTypes | None = None,
    ) -> None:
        self._d = deps
        self._caller = caller
        self._allow_loopback = loopback_allowed(allow_loopback, caller.environment)
        self._known = known_types or (lambda: EVENT_TYPES)

    def _view(self, uow: UnitOfWork, e: WebhookEndpoint, secret: str | None = None) -> EndpointView:
        ref = None
        if e.merchant_id is not None:
            merchant = uow.merchants.get(e.merchant_id)
            ref = merchant.external_reference if merchant else None
        return EndpointView(e, ref, secret)

    def _get(self, uow: UnitOfWork, endpoint_id: str, for_update: bool = False) -> WebhookEndpoint:
        e = uow.webhooks.get_endpoint(self._caller.provider_id, endpoint_id, for_update)
        if e is None or (
            self._caller.merchant_id is not None and e.merchant_id != self._caller.merchant_id
        ):
            raise NotFound(f"no webhook endpoint '{endpoint_id}'")
        return e

    def _new_secret(self) -> tuple[str, bytes]:
        secret = new_secret(self._d.randomness.token_bytes(SECRET_BYTES))
        return secret, self._d.secrets.seal(secret.encode())

    def create(self, given: EndpointInput) -> EndpointView:
        """The new endpoint with its signing secret (shown this once)."""
        url: list[str] = []
        types: list[tuple[str, ...]] = []
        description: list[str | None] = []
        email: list[str | None] = []
        collect(
            lambda: url.append(check_url(given.url, allow_loopback=self._allow_loopback)),
            lambda: types.append(check_event_types(given.event_types, self._known())),
            lambda: description.append(clean_description(given.description)),
            lambda: email.append(clean_email(given.alert_email)),
        )
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._caller.merchant_id
            if given.merchant_reference is not None:
                merchant_id = find_merchant(uow, self._caller, given.merchant_reference).id
            now = self._d.clock.now()
            secret, sealed = self._new_secret()
            endpoint = WebhookEndpoint(
                id=self._d.new_id("whe"),
                provider_id=self._caller.provider_id,
                merchant_id=merchant_id,
                url=url[0],
                event_types=types[0],
                description=description[0],
                alert_email=email[0],
                enabled=True,
                secret_sealed=sealed,
                created_at=now,
                updated_at=now,
            )
            uow.webhooks.add_endpoint(endpoint)
            return self._view(uow, endpoint, secret)

    def list(
        self, merchant_reference: str | None = None, after: str | None = None, limit: int = 50
    ) -> Page[EndpointView]:
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._caller.merchant_id
            if merchant_reference is not None:
                merchant_id = find_merchant(uow, self._caller, merchant_reference).id
            if after is not None:
                check_cursor(self._visible(uow, after, merchant_id))
            rows = uow.webhooks.list_endpoints(
                self._caller.provider_id, merchant_id, after, limit + 1
            )
            page = page_of(rows, limit, lambda e: e.id)
            return Page([self._view(uow, e) for e in page.items], page.has_more, page.next_cursor)

    def _visible(self, uow: UnitOfWork, endpoint_id: str, merchant_id: str | None) -> bool:
        e = uow.webhooks.get_endpoint(self._caller.provider_id, endpoint_id)
        return e is not None and (merchant_id is None or e.merchant_id == merchant_id)

    def get(self, endpoint_id: str) -> EndpointView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._view(uow, self._get(uow, endpoint_id))

    def update(self, endpoint_id: str, patch: EndpointPatch) -> EndpointView:
        """Change fields; enabling a disabled endpoint clears its failing streak."""
        changes: dict[str, object] = {}

        def put(name: str, check: Callable[[], object]) -> Callable[[], None]:
            return lambda: changes.__setitem__(name, check())

        checks = []
        if patch.url is not None:
            checks.append(
                put("url", lambda: check_url(patch.url or "", allow_loopback=self._allow_loopback))
            )
        if patch.event_types is not None:
            checks.append(
                put("event_types", lambda: check_event_types(patch.event_types, self._known()))
            )
        if patch.description is not None:
            checks.append(put("description", lambda: clean_description(patch.description)))
        if patch.alert_email is not None:
            checks.append(put("alert_email", lambda: clean_email(patch.alert_email)))
        collect(*checks)
        with self._d.store.unit_of_work() as uow:
            e = self._get(uow, endpoint_id, for_update=True)
            for name, value in changes.items():
                setattr(e, name, value)
            if patch.enabled is not None and patch.enabled != e.enabled:
                e.enabled = patch.enabled
                e.disabled_reason = None if patch.enabled else "disabled by the owner"
                e.failing_since = None
            e.updated_at = self._d.clock.now()
            uow.webhooks.save_endpoint(e)
            return self._view(uow, e)

    def delete(self, endpoint_id: str) -> None:
        """Gone from lists and reads; deliveries on their way are cancelled."""
        with self._d.store.unit_of_work() as uow:
            e = self._get(uow, endpoint_id, for_update=True)
            now = self._d.clock.now()
            e.deleted_at = now
            e.enabled = False
            e.updated_at = now
            uow.webhooks.save_endpoint(e)

    def rotate_secret(self, endpoint_id: str, overlap_hours: float | None = None) -> EndpointView:
        """A new secret (shown this once); the old one still signs for the overlap (24 h by
        default, 0 ends it now), so receivers can switch without losing events."""
        overlap = check_overlap(overlap_hours)
        with self._d.store.unit_of_work() as uow:
            e = self._get(uow, endpoint_id, for_update=True)
            now = self._d.clock.now()
            secret, sealed = self._new_secret()
            e.previous_secret_sealed = e.secret_sealed if overlap > timedelta(0) else None
            e.previous_secret_expires_at = now + overlap if overlap > timedelta(0) else None
            e.secret_sealed = sealed
            e.updated_at = now
            uow.webhooks.save_endpoint(e)
            return self._view(uow, e, secret)

    def attempts(
        self, endpoint_id: str, after: str | None = None, limit: int = 50
    ) -> Page[DeliveryAttempt]:
        """The endpoint's delivery log, newest first."""
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            e = self._get(uow, endpoint_id)
            return page_of(uow.webhooks.attempts(e.id, after, limit + 1), limit, lambda a: a.id)

    def resend(self, endpoint_id: str, event_id: str) -> WebhookDelivery:
        """Send one event to this endpoint again (a new delivery, in order behind any open
        one for the same object): any event of the caller's (``GET /api/events``)."""
        with self._d.store.unit_of_work() as uow:
            e = self._get(uow, endpoint_id)
            if not e.enabled:
                raise Conflict(f"webhook endpoint '{endpoint_id}' is disabled; enable it first")
            earlier = self._earlier(uow, event_id)
            if e.merchant_id is not None and earlier.merchant_id != e.merchant_id:
                raise NotFound(f"no event '{event_id}'")
            return enqueue_delivery(uow, self._d, e, earlier)

    def find_event(self, event_id: str) -> str:
        """The event's type, when the caller may send it again (``NotFound`` otherwise)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._earlier(uow, event_id).event_type

    def replay(self, event_id: str) -> builtins.list[WebhookDelivery]:
        """Send one event again to every enabled endpoint that wants it now."""
        with self._d.store.unit_of_work() as uow:
            earlier = self._earlier(uow, event_id)
            return [
                enqueue_delivery(uow, self._d, e, earlier)
                for e in uow.webhooks.enabled_endpoints(self._caller.provider_id)
                if e.wants(earlier.event_type, earlier.merchant_id)
                and (self._caller.merchant_id is None or e.merchant_id == self._caller.merchant_id)
            ]

    def _earlier(self, uow: UnitOfWork, event_id: str) -> Sendable:
        """What to send again: the exact body sent before when there is one, else the event
        as recorded (``GET /api/events``), so an event no endpoint wanted can be sent too."""
        found = uow.webhooks.deliveries_of_event(self._caller.provider_id, event_id)
        mine = self._caller.merchant_id
        if mine is not None:
            found = [d for d in found if d.merchant_id == mine]
        if found:
            return Sendable.of_delivery(found[0])
        event = uow.events.get(event_id)
        if (
            event is None
            or event.provider_id != self._caller.provider_id
            or (mine is not None and event.merchant_id != mine)
        ):
            raise NotFound(f"no event '{event_id}'")
        return Sendable.of_event(record_of(event))
