"""Delivery by the worker to a real receiver: retries on the documented schedule, exactly one
successful delivery, order per object, crashes, Retry-After, tenancy, rotation, disabling.
Every request the receiver got is verified with ``standardwebhooks``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from standardwebhooks.webhooks import WebhookVerificationError

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.adapters.webhooks.sender import HttpWebhookSender
from payhub.domain.environments import Environment
from payhub.domain.webhooks import DISABLE_AFTER, RETRY_SCHEDULE, new_secret
from payhub.hub import ProviderScope
from payhub.ports import Job, WebhookResponse
from payhub.services.webhooks import QUEUE, Deliverer, EndpointInput, EndpointView
from payhub.services.worker import Worker
from tests.messaging.conftest import FakeMailer
from tests.webhooks.conftest import Events, Receiver

OTHER_SECRET = new_secret(b"\x01" * 32)


def endpoint(
    scope: ProviderScope, receiver: Receiver, path: str = "/hook", types: list[str] | None = None
) -> EndpointView:
    return scope.webhooks.create(
        EndpointInput(url=receiver.url(path), event_types=types or ["*"], alert_email="ops@a.com")
    )


def verified(receiver: Receiver, secret: str) -> None:
    """Every request carries a signature the oracle accepts, and a wrong secret fails it."""
    assert receiver.requests
    for r in receiver.requests:
        body = r.verify(secret, r.at)
        assert set(body) == {"type", "timestamp", "data"}
        assert r.headers["webhook-timestamp"] == str(int(r.at.timestamp()))
        with pytest.raises(WebhookVerificationError):
            r.verify(OTHER_SECRET, r.at)


def test_five_failures_then_success_delivers_once_and_never_again(
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
    clock: FixedClock,
) -> None:
    ep = endpoint(scope, receiver)
    assert ep.secret is not None
    receiver.fail(5)
    event = events.emit(scope.caller.provider_id, "invoice.paid", "inv_1", amount="12.50")
    worker.run_once()  # the first attempt is immediate
    assert len(receiver.requests) == 1
    for attempt in range(2, 7):
        wait = RETRY_SCHEDULE[attempt - 1]
        clock.advance(wait - timedelta(seconds=1))
        worker.run_once()
        assert len(receiver.requests) == attempt - 1, "no attempt before its time"
        clock.advance(timedelta(seconds=1))
        worker.run_once()
        assert len(receiver.requests) == attempt
    assert [r.answered for r in receiver.requests] == [500] * 5 + [200]
    assert {r.headers["webhook-id"] for r in receiver.requests} == {event.id}
    for _ in range(10):
        clock.advance(timedelta(hours=12))
        worker.run_once()
    assert len(receiver.requests) == 6
    verified(receiver, ep.secret)
    body = receiver.requests[-1].event
    assert body["type"] == "invoice.paid"
    assert body["data"] == {"id": "inv_1", "n": 1, "amount": "12.50"}
    log = scope.webhooks.attempts(ep.endpoint.id).items
    assert [(a.attempt, a.status_code, a.outcome) for a in log] == [
        (6, 200, "delivered"),
        *[(n, 500, "retrying") for n in range(5, 0, -1)],
    ]
    assert all(a.error is None and a.duration_ms >= 0 for a in log)
    clock.advance(timedelta(days=30))
    assert worker.run_once().purged_deliveries == 1  # kept as long as events are
    assert scope.webhooks.attempts(ep.endpoint.id).items == []


def test_events_of_one_object_arrive_in_order(
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
    clock: FixedClock,
) -> None:
    ep = endpoint(scope, receiver)
    pid = scope.caller.provider_id
    first = events.emit(pid, "invoice.sent", "inv_1")
    receiver.failing_ids[first.id] = 1  # inv_1's first event fails once; its followers wait
    second = events.emit(pid, "invoice.partially_paid", "inv_1")
    other = events.emit(pid, "invoice.sent", "inv_2")
    third = events.emit(pid, "invoice.paid", "inv_1")
    worker.run_once()
    got = {r.headers["webhook-id"] for r in receiver.requests}
    assert got == {first.id, other.id}, "inv_1's later events wait behind its first"
    clock.advance(RETRY_SCHEDULE[1])
    worker.run_once()
    delivered = [r.headers["webhook-id"] for r in receiver.requests if r.answered == 200]
    assert [e for e in delivered if e != other.id] == [first.id, second.id, third.id]
    clock.advance(timedelta(days=2))
    worker.run_once()
    assert len(receiver.requests) == 5
    assert ep.secret is not None
    verified(receiver, ep.secret)


class Crash(BaseException):
    """The worker process dying (not an ``Exception``: nothing catches it)."""


class CrashAfterPost:
    def __init__(self, real: HttpWebhookSender) -> None:
        self.real = real

    def post(
        self, url: str, headers: dict[str, str], body: bytes, *, allow_loopback: bool = False
    ) -> WebhookResponse:
        self.real.post(url, headers, body, allow_loopback=allow_loopback)
        raise Crash


def test_a_worker_crash_mid_delivery_sends_again_and_loses_nothing(
    hub: PayHub,
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
    clock: FixedClock,
) -> None:
    ep = endpoint(scope, receiver)
    event = events.emit(scope.caller.provider_id)
    crashing = Deliverer(
        hub.deps, CrashAfterPost(HttpWebhookSender()), FakeMailer(), allow_loopback=True
    )
    doomed = Worker(hub.deps, {QUEUE: crashing.handle}, "doomed")
    with pytest.raises(Crash):
        doomed.run_once()
    assert len(receiver.requests) == 1  # the receiver got it; nobody recorded that
    worker.run_once()
    assert len(receiver.requests) == 1, "the crashed worker's lease still holds the job"
    clock.advance(timedelta(minutes=5, seconds=1))  # the lease expires
    worker.run_once()
    assert [r.headers["webhook-id"] for r in receiver.requests] == [event.id, event.id]
    clock.advance(timedelta(days=3))
    worker.run_once()
    assert len(receiver.requests) == 2
    log = scope.webhooks.attempts(ep.endpoint.id).items
    assert [(a.attempt, a.outcome) for a in log] == [(2, "delivered")]


def test_a_receiver_of_another_provider_never_sees_the_first_ones_events(
    hub: PayHub,
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
) -> None:
    other_provider, _ = hub.operators.create_provider("Provider B", Environment.SANDBOX)
    other = hub.provider(hub.as_provider(other_provider.id))
    endpoint(scope, receiver, "/a")
    endpoint(other, receiver, "/b")
    shop = scope.merchants.create("acme", "Acme")
    bolt = scope.merchants.create("bolt", "Bolt")
    only_acme = scope.webhooks.create(
        EndpointInput(url=receiver.url("/acme"), event_types=["*"], merchant_reference="acme")
    )
    assert only_acme.merchant_reference == "acme"
    events.emit(scope.caller.provider_id, merchant_id=shop.id)
    events.emit(scope.caller.provider_id, object_id="inv_2", merchant_id=bolt.id)
    worker.run_once()
    assert len(receiver.at("/a")) == 2
    assert receiver.at("/b") == []
    assert len(receiver.at("/acme")) == 1
    assert receiver.at("/acme")[0].event["data"]["id"] == "inv_1"


def test_event_types_filter_what_an_endpoint_gets(
    scope: ProviderScope, receiver: Receiver, events: Events, worker: Worker
) -> None:
    endpoint(scope, receiver, "/paid", ["invoice.paid"])
    pid = scope.caller.provider_id
    events.emit(pid, "invoice.sent")
    events.emit(pid, "invoice.paid", "inv_2")
    worker.run_once()
    assert [r.event["type"] for r in receiver.at("/paid")] == ["invoice.paid"]


def test_retry_after_on_429_is_honoured(
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
    clock: FixedClock,
) -> None:
    endpoint(scope, receiver)
    receiver.fail(1, 429, {"Retry-After": "120"})
    events.emit(scope.caller.provider_id)
    worker.run_once()
    clock.advance(RETRY_SCHEDULE[1])  # the schedule's 5 s
    worker.run_once()
    assert len(receiver.requests) == 1
    clock.advance(timedelta(seconds=115))
    worker.run_once()
    assert [r.answered for r in receiver.requests] == [429, 200]


def test_redirects_are_not_followed(
    scope: ProviderScope, receiver: Receiver, events: Events, worker: Worker
) -> None:
    ep = endpoint(scope, receiver)
    receiver.fail(1, 302, {"Location": receiver.url("/elsewhere")})
    events.emit(scope.caller.provider_id)
    worker.run_once()
    assert [r.path for r in receiver.requests] == ["/hook"]
    log = scope.webhooks.attempts(ep.endpoint.id).items
    assert [(a.status_code, a.outcome) for a in log] == [(302, "retrying")]


def test_during_a_rotation_both_secrets_sign_then_only_the_new_one(
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
    clock: FixedClock,
) -> None:
    ep = endpoint(scope, receiver)
    rotated = scope.webhooks.rotate_secret(ep.endpoint.id, 24)
    assert ep.secret
    assert rotated.secret
    assert rotated.secret != ep.secret
    events.emit(scope.caller.provider_id)
    worker.run_once()
    during = receiver.requests[-1]
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    during.verify(ep.secret, during.at)
    during.verify(rotated.secret, during.at)
    clock.advance(timedelta(hours=24, seconds=1))
    events.emit(scope.caller.provider_id, object_id="inv_2")
    worker.run_once()
    after = receiver.requests[-1]
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    after.verify(rotated.secret, after.at)
    with pytest.raises(WebhookVerificationError):
        after.verify(ep.secret, after.at)


def test_an_endpoint_failing_for_days_is_disabled_and_its_owner_emailed(
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
    clock: FixedClock,
    mailer: FakeMailer,
) -> None:
    ep = endpoint(scope, receiver)
    receiver.fail(100)
    pid = scope.caller.provider_id
    events.emit(pid)
    for wait in (timedelta(0), *RETRY_SCHEDULE[1:]):
        clock.advance(wait)
        worker.run_once()
    assert len(receiver.requests) == 8
    assert scope.webhooks.attempts(ep.endpoint.id).items[0].outcome == "failed"
    assert scope.webhooks.get(ep.endpoint.id).endpoint.enabled
    assert mailer.sent == []
    clock.advance(DISABLE_AFTER)
    events.emit(pid, object_id="inv_2")
    worker.run_once()
    view = scope.webhooks.get(ep.endpoint.id)
    assert scope.webhooks.attempts(ep.endpoint.id).items[0].outcome == "failed"
    assert not view.endpoint.enabled
    assert view.endpoint.disabled_reason
    assert "failed since" in view.endpoint.disabled_reason
    assert [m.to for m in mailer.sent] == ["ops@a.com"]
    assert ep.endpoint.id in mailer.sent[0].body
    events.emit(pid, object_id="inv_3")
    clock.advance(timedelta(days=1))
    worker.run_once()
    assert len(receiver.requests) == 9, "a disabled endpoint gets nothing"


def test_resend_and_replay_queue_the_same_event_again(
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
    worker: Worker,
) -> None:
    ep = endpoint(scope, receiver)
    event = events.emit(scope.caller.provider_id)
    worker.run_once()
    scope.webhooks.resend(ep.endpoint.id, event.id)
    worker.run_once()
    assert len(scope.webhooks.replay(event.id)) == 1
    worker.run_once()
    assert [r.headers["webhook-id"] for r in receiver.requests] == [event.id] * 3
    assert len({r.body for r in receiver.requests}) == 1


def test_an_address_that_turns_internal_is_refused_at_delivery(
    store_url: str,
    key_file: object,
    clock: FixedClock,
    hub: PayHub,
    scope: ProviderScope,
    receiver: Receiver,
    events: Events,
) -> None:
    """The loopback address was allowed when the endpoint was saved; a worker without the
    test setting refuses it when it connects (as it refuses a public name that resolves to
    an internal address)."""
    ep = endpoint(scope, receiver)
    strict = Deliverer(hub.deps, HttpWebhookSender(), FakeMailer(), allow_loopback=False)
    events.emit(scope.caller.provider_id)
    Worker(hub.deps, {QUEUE: strict.handle}, "strict").run_once()
    assert receiver.requests == []
    log = scope.webhooks.attempts(ep.endpoint.id).items
    assert log[0].status_code is None
    assert log[0].error
    assert log[0].error.startswith("refused")


def test_the_sender_refuses_a_name_resolving_to_loopback(receiver: Receiver) -> None:
    sender = HttpWebhookSender()
    url = receiver.url().replace("127.0.0.1", "localhost")
    refused = sender.post(url, {}, b"{}", allow_loopback=False)
    assert refused.status is None
    assert refused.error
    assert "non-public address" in refused.error
    assert receiver.requests == []
    allowed = sender.post(url, {}, b"{}", allow_loopback=True)
    assert allowed.status == 200


def test_a_stale_job_does_nothing(hub: PayHub, scope: ProviderScope, events: Events) -> None:
    """Only the job a delivery names may send it."""
    sent: list[str] = []

    class Recorder:
        def post(
            self, url: str, headers: dict[str, str], body: bytes, **_: bool
        ) -> WebhookResponse:
            sent.append(url)
            return WebhookResponse(200, 1)

    scope.webhooks.create(EndpointInput(url="https://hooks.example.com/x", event_types=["*"]))
    events.emit(scope.caller.provider_id)
    with hub.store.unit_of_work() as uow:
        (d,) = uow.webhooks.deliveries_of_event(scope.caller.provider_id, "evt_0001")
    handler: Callable[[Job], None] = Deliverer(hub.deps, Recorder(), FakeMailer()).handle
    handler(Job("job_other", QUEUE, {"delivery_id": d.id}, hub.deps.clock.now(), 1))
    assert sent == []
    assert d.job_id is not None
    handler(Job(d.job_id, QUEUE, {"delivery_id": d.id}, hub.deps.clock.now(), 1))
    assert sent == ["https://hooks.example.com/x"]


def test_a_receiver_that_never_answers_times_out() -> None:
    """The sender's timeout (15 s in production, shortened here) ends a silent receiver's
    attempt as a failure with the reason."""
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        port = silent.getsockname()[1]
        sender = HttpWebhookSender(timeout_s=0.2)
        answer = sender.post(f"http://127.0.0.1:{port}/x", {}, b"{}", allow_loopback=True)
    finally:
        silent.close()
    assert answer.status is None
    assert answer.error == "timeout after 0.2 s"
