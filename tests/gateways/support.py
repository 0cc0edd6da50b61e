"""Setup the gateway adapter tests share (tests/gateways/<gateway>/test_adapter.py).

``usd`` builds the amounts most of them use; ``hub_on`` opens a hub whose adapters talk to a
gateway's fake through ``httpx.MockTransport``, for each module's over-HTTP tests::

    @pytest.fixture
    def hub(store_url, key_file, clock, fake):
        yield from hub_on(store_url, key_file, clock, fake.handler, {"heartland": HeartlandGateway})
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from pathlib import Path

import httpx

from payhub import PayHub
from payhub.domain.money import Money
from payhub.ports import Clock, Gateway


def usd(value: str | Decimal) -> Money:
    return Money.of(value, "USD")


def hub_on(
    store_url: str,
    key_file: Path,
    clock: Clock,
    handler: Callable[[httpx.Request], httpx.Response],
    adapters: Mapping[str, Callable[[httpx.Client], Gateway]],
) -> Iterator[PayHub]:
    """A hub on ``store_url`` whose gateways (catalog name -> adapter class) send every
    request to ``handler``; closed when the test ends."""
    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        hub = PayHub.open(
            store_url,
            key_file=key_file,
            clock=clock,
            gateways={name: make(http) for name, make in adapters.items()},
        )
        yield hub
        hub.close()
