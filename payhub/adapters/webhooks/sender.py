"""POST signed events to webhook endpoints, refusing non-public addresses at connect time.

The endpoint's host name was checked when it was saved (``payhub.domain.webhooks``), but a
name can be pointed anywhere later (DNS rebinding). So the connection itself is guarded:
the network backend resolves the name, refuses when any address it resolves to is not a
public (globally routable) one, and connects to the address it checked, never resolving
twice. TLS still verifies the certificate against the host name. Redirects are not
followed (httpcore never follows them) and each phase (connect, write, read) has 15 s.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterable

import httpcore

from payhub.domain.webhooks import TIMEOUT_S
from payhub.ports import WebhookResponse

ERROR_MAX = 300
RETRY_AFTER = b"retry-after"


class AddressRefused(OSError):
    """The host resolves to an address webhooks may not reach."""


def allowed_address(address: str, allow_loopback: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return allow_loopback
    return ip.is_global and not ip.is_multicast


class GuardedBackend(httpcore.SyncBackend):
    """Resolves once, checks every address, connects to a checked one."""

    def __init__(self, allow_loopback: bool = False) -> None:
        self._allow_loopback = allow_loopback

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as e:
            raise httpcore.ConnectError(f"cannot resolve {host}: {e.strerror}") from None
        addresses = [str(info[4][0]) for info in infos]
        refused = [a for a in addresses if not allowed_address(a, self._allow_loopback)]
        if refused or not addresses:
            raise AddressRefused(f"{host} resolves to a non-public address ({refused[0]})")
        return super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)


def _excerpt(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return text if len(text) <= ERROR_MAX else text[: ERROR_MAX - 1] + "…"


class HttpWebhookSender:
    """The ``WebhookSender`` port over httpcore, one guarded connection pool per mode."""

    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self._timeout_s = timeout_s
        self._timeout = {"connect": timeout_s, "read": timeout_s, "write": timeout_s, "pool": 5.0}
        self._pools = {
            flag: httpcore.ConnectionPool(
                network_backend=GuardedBackend(allow_loopback=flag),
                max_connections=50,
                keepalive_expiry=30.0,
            )
            for flag in (False, True)
        }

    def post(
        self, url: str, headers: dict[str, str], body: bytes, *, allow_loopback: bool = False
    ) -> WebhookResponse:
        started = time.monotonic()

        def elapsed() -> int:
            return int((time.monotonic() - started) * 1000)

        sent = [(k.encode(), v.encode()) for k, v in headers.items()]
        sent += [(b"user-agent", b"payhub-webhooks/1"), (b"content-length", b"%d" % len(body))]
        try:
            with self._pools[allow_loopback].stream(
                "POST", url, headers=sent, content=body, extensions={"timeout": self._timeout}
            ) as response:
                # The body is never kept; read a little so the connection can be reused.
                for _ in response.iter_stream():
                    break
                retry_after = next(
                    (v.decode("latin-1") for k, v in response.headers if k.lower() == RETRY_AFTER),
                    None,
                )
                return WebhookResponse(response.status, elapsed(), retry_after)
        except AddressRefused as e:
            return WebhookResponse(None, elapsed(), error=f"refused: {e}")
        except httpcore.TimeoutException:
            return WebhookResponse(None, elapsed(), error=f"timeout after {self._timeout_s:g} s")
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as e:
            return WebhookResponse(None, elapsed(), error=_excerpt(e))
        except OSError as e:
            return WebhookResponse(None, elapsed(), error=_excerpt(e))

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
