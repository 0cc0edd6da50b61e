"""What a scenario driver is: a fake, the adapter talking to it, and the fake's recipes.

The transport failures (5xx, timeout, malformed answer, an answer lost after the gateway acted)
are the same for every gateway and made by ``Switchboard`` in front of the fake, so a driver
only says which request is "the charge" (``breaks``) when the adapter sends others first.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, ClassVar, Literal

import httpx

from payhub.domain.gateways import GatewayInfo
from payhub.domain.money import Money
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.catalog_rows import GATEWAYS

Mode = Literal["5xx", "timeout", "unreachable", "malformed", "lost"]
Handler = Callable[[httpx.Request], httpx.Response]

# The decline families payhub knows (payhub.domain.payments.DECLINE_CODES).
FAMILIES = (
    "generic_decline",
    "insufficient_funds",
    "expired_card",
    "incorrect_cvc",
    "fraudulent",
    "processing_error",
)


class Switchboard:
    """A transport in front of a fake: passes requests through, or breaks the next one the
    driver names (``breaks``) in the asked way."""

    def __init__(self, handler: Handler, breaks: Callable[[httpx.Request], bool]) -> None:
        self.handler = handler
        self.breaks = breaks
        self.mode: Mode | None = None
        self.status = 503  # what "5xx" answers

    def handle(self, request: httpx.Request) -> httpx.Response:
        mode = self.mode if self.breaks(request) else None
        if mode is not None:
            self.mode = None
        if mode == "5xx":
            return httpx.Response(self.status, text="Service Unavailable")
        if mode == "timeout":
            raise httpx.ReadTimeout("the fake never answered", request=request)
        if mode == "unreachable":
            raise httpx.ConnectError("connection refused", request=request)
        if mode == "malformed":
            return httpx.Response(
                200,
                text="<html><body>502 Bad Gateway</body></html>",
                headers={"content-type": "text/html"},
            )
        response = self.handler(request)
        if mode == "lost":
            response.read()
            raise httpx.ReadTimeout("the answer was lost after the fake acted", request=request)
        return response


class Driver:
    """One gateway's fake and its recipes. Subclasses fill in the class variables and
    ``make``; the recipe methods return None where the fake cannot play the scenario."""

    name: ClassVar[str]  # the catalog name
    decline_tokens: ClassVar[dict[str, str]] = {}  # family -> a token the fake declines so
    currency: ClassVar[str] = "USD"
    creds: ClassVar[GatewayCredentials]  # what the fake accepts (sandbox)
    bad_creds: ClassVar[GatewayCredentials]  # what it rejects as the merchant's credentials
    # scenario (test function name) -> why this gateway's fake or adapter cannot play it
    skips: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self.fake: Any = self.make_fake()
        self.switchboard = Switchboard(self.fake.handler, self.breaks)
        self.client = httpx.Client(transport=httpx.MockTransport(self.switchboard.handle))
        self.gateway: Gateway = self.make_gateway(self.client)

    # --- what each driver says --------------------------------------------------------------

    def make_fake(self) -> Any:
        raise NotImplementedError

    def make_gateway(self, client: httpx.Client) -> Gateway:
        raise NotImplementedError

    def card_token(self) -> str:
        """A fresh token the fake approves."""
        raise NotImplementedError

    def save_token(self) -> str:
        """A fresh token to vault (another card where tokens are single use)."""
        return self.card_token()

    def decline_token(self, family: str) -> str | None:
        return self.decline_tokens.get(family)

    def breaks(self, request: httpx.Request) -> bool:
        """Whether the switchboard's next failure applies to this request."""
        return True

    def settle(self) -> None:
        """Settle the fake's open batch (gateways that refund only settled sales)."""

    def charges_made(self) -> int | None:
        """How many charges the fake holds (None: the fake does not say)."""
        return None

    # --- derived ----------------------------------------------------------------------------

    @property
    def info(self) -> GatewayInfo:
        return next(g for g in GATEWAYS if g.name == self.name)

    def money(self, value: str) -> Money:
        return Money.of(Decimal(value), self.currency)

    def close(self) -> None:
        self.client.close()
