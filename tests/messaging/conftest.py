"""Messaging runs on a real store with recording senders: a fake SMS API (send, lookup,
signatures) and a fake mailer, both implementing the ports."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path

import attrs
import pytest

from payhub import PayHub
from payhub.adapters.messaging.signature import valid_twilio_signature
from payhub.adapters.system import FixedClock
from payhub.domain.customers import Customer, CustomerName
from payhub.domain.environments import Environment
from payhub.domain.messaging import OutgoingEmail, OutgoingSms, SendFailed
from payhub.hub import MerchantScope
from payhub.services.customers import CustomerInput

AUTH_TOKEN = "test-auth-token-0123456789abcdef"
PHONE = "+14155552671"


@attrs.define
class FakeSms:
    """An SMS provider as payhub sees it. ``failures`` are raised, one per send, first;
    ``taken`` holds what the provider accepted (``find_sent`` looks there)."""

    name: str = "fake-sms"
    sent: list[OutgoingSms] = attrs.field(factory=list)
    taken: dict[str, tuple[OutgoingSms, datetime]] = attrs.field(factory=dict)
    failures: list[BaseException] = attrs.field(factory=list)
    accept_then_fail: bool = False  # take the text, then answer as if it timed out
    clock: FixedClock | None = None
    lookups: int = 0

    def send(self, sms: OutgoingSms) -> str:
        if self.failures:
            raise self.failures.pop(0)
        sid = f"SM{len(self.taken):032d}"
        assert self.clock is not None
        self.taken[sid] = (sms, self.clock.now())
        self.sent.append(sms)
        if self.accept_then_fail:
            self.accept_then_fail = False
            raise SendFailed("read timeout", unknown=True)
        return sid

    def find_sent(self, sms: OutgoingSms, since: datetime) -> list[str]:
        self.lookups += 1
        return [
            sid
            for sid, (seen, at) in self.taken.items()
            if seen.to == sms.to and seen.body == sms.body and at >= since
        ]

    def verify_inbound(
        self, url: str, params: Sequence[tuple[str, str]], signature: str | None
    ) -> bool:
        return valid_twilio_signature(url, params, signature, AUTH_TOKEN)


@attrs.define
class FakeMailer:
    name: str = "fake-mail"
    sent: list[OutgoingEmail] = attrs.field(factory=list)
    failures: list[SendFailed] = attrs.field(factory=list)

    def send(self, email: OutgoingEmail) -> str:
        if self.failures:
            raise self.failures.pop(0)
        self.sent.append(email)
        return f"<{email.message_id}@test>"


@pytest.fixture
def sms(clock: FixedClock) -> FakeSms:
    return FakeSms(clock=clock)


@pytest.fixture
def mailer() -> FakeMailer:
    return FakeMailer()


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, sms: FakeSms, mailer: FakeMailer
) -> Iterator[PayHub]:
    hub = PayHub.open(
        store_url,
        key_file=key_file,
        clock=clock,
        sms=sms,
        mailer=mailer,
        public_url="https://pay.example.com",
    )
    yield hub
    hub.close()


@pytest.fixture
def shop(hub: PayHub) -> MerchantScope:
    provider, _ = hub.operators.create_provider("Provider", Environment.SANDBOX)
    scope = hub.provider(hub.as_provider(provider.id))
    scope.merchants.create("acme", "Acme Plumbing")
    return scope.merchant("acme")


@pytest.fixture
def new_customer(shop: MerchantScope) -> Callable[..., Customer]:
    def make(
        phone: str | None = PHONE, email: str | None = "ada@example.com", consent: bool = True
    ) -> Customer:
        return shop.customers.create(
            CustomerInput(
                name=CustomerName("Ada", "Lovelace"),
                email=email,
                phone=phone,
                sms_consent=consent if phone else None,
            )
        )

    return make
