"""Vendors' own contracts, read from their installed SDK packages, that the fakes and the
adapter tests validate requests and answers against (issue 14). Nothing here copies a
vendor file: each validator reads the package named in its folder's SOURCE file."""

from __future__ import annotations

from collections.abc import Callable

import httpx


class ContractViolation(AssertionError):
    """A request or answer the vendor's published contract rejects."""


def checked_transport(
    validate: Callable[[httpx.Request], object],
    handler: Callable[[httpx.Request], httpx.Response],
) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """A transport that validates every request against the vendor's contract before the
    fake answers it, and the list of requests it saw (to check that all were covered)."""
    seen: list[httpx.Request] = []

    def checked(request: httpx.Request) -> httpx.Response:
        validate(request)
        seen.append(request)
        return handler(request)

    return httpx.MockTransport(checked), seen
