"""What every HTTP gateway adapter shares: timeouts and transport-failure mapping.

Adapters take an ``httpx.Client`` (tests pass one with ``httpx.MockTransport``), and
call ``GatewayHttp.send``; it turns timeouts into ``GatewayTimeout``, connection
failures and 5xx answers into ``GatewayUnavailable`` and 401/403 into
``GatewayCredentialsRejected``, so each adapter maps only its own business errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import attrs
import httpx
import msgspec

from payhub.domain.payments import GatewayCredentialsRejected, GatewayTimeout, GatewayUnavailable

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
_JSON = msgspec.json.Encoder(decimal_format="number")


def path_segment(identifier: str) -> str:
    """A gateway id made safe to put in a URL path (nothing it holds can add a segment)."""
    return quote(identifier, safe="")


def opt_str(value: object) -> str | None:
    """A JSON field that should be a string, or None."""
    return value if isinstance(value, str) else None


def opt_int(value: object) -> int | None:
    """A JSON field that should be an integer (or a string of digits), or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def json_body(payload: Any) -> bytes:
    """A JSON request body with ``Decimal`` amounts written as exact numbers ("12.04"), so no
    amount ever passes through a float on its way to a gateway."""
    return _JSON.encode(payload)


@attrs.frozen
class Answer:
    """A gateway's parsed answer and the short note support staff may see (never the body)."""

    body: Any
    status_code: int
    request_id: str | None = None
    request_id_label: str = "request_id"

    def support(self, **extra: str | None) -> dict[str, str]:
        note = {"http_status": str(self.status_code)}
        if self.request_id:
            note[self.request_id_label] = self.request_id
        note.update({k: v for k, v in extra.items() if v})
        return note


def default_client() -> httpx.Client:
    return httpx.Client(timeout=DEFAULT_TIMEOUT, follow_redirects=False)


class GatewayHttp:
    def __init__(self, gateway: str, client: httpx.Client | None = None) -> None:
        self.gateway = gateway
        self.client = client or default_client()

    def send(
        self,
        method: str,
        url: str,
        *,
        credentials_errors: bool = True,
        server_error: Callable[[httpx.Response], Exception | None] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """Send one request. Business errors (4xx other than auth) are left to the adapter.

        ``server_error`` lets an adapter whose gateway answers some business outcomes with a
        5xx (Helcim's declines) name the error first; when it returns None the 5xx is
        ``GatewayUnavailable`` as usual.
        """
        try:
            response = self.client.request(method, url, **kwargs)
        except httpx.TimeoutException:
            raise GatewayTimeout(
                f"{self.gateway} did not answer in time; the outcome is unknown until a status"
                " call settles it",
                gateway=self.gateway,
            ) from None
        except httpx.TransportError as e:
            raise GatewayUnavailable(
                f"{self.gateway} could not be reached ({type(e).__name__})", gateway=self.gateway
            ) from None
        request_id = _request_id(response)
        if response.status_code >= 500:
            own = server_error(response) if server_error else None
            if own is not None:
                raise own
            raise GatewayUnavailable(
                f"{self.gateway} answered {response.status_code}; try again later",
                gateway=self.gateway,
                gateway_request_id=request_id,
            )
        if credentials_errors and response.status_code in (401, 403):
            raise GatewayCredentialsRejected(
                f"{self.gateway} rejected the merchant's credentials; update them with"
                " PUT /api/merchant-accounts/{ref}/credentials/" + self.gateway,
                gateway=self.gateway,
                gateway_request_id=request_id,
            )
        return response


def _request_id(response: httpx.Response) -> str | None:
    for header in ("request-id", "x-request-id", "paypal-debug-id", "correlation-id"):
        if header in response.headers:
            return response.headers[header][:100]
    return None
