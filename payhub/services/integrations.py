"""The merchant's integrations and their status (the portal's Integrations pages).

No integration can be connected yet (each arrives with its own issue and its storage), so
every status is "not connected" with no sync; the pages, routes and this service's shape
are what those issues fill in.
"""

from __future__ import annotations

from payhub.domain.errors import NotFound
from payhub.domain.integrations import BY_KEY, INTEGRATIONS, IntegrationStatus
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant


class Integrations:
    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def _check_merchant(self) -> None:
        with self._d.store.unit_of_work(readonly=True) as uow:
            find_merchant(uow, self._caller, self._reference)

    def list(self) -> list[IntegrationStatus]:
        self._check_merchant()
        return [IntegrationStatus(i) for i in INTEGRATIONS]

    def get(self, key: str) -> IntegrationStatus:
        integration = BY_KEY.get(key)
        if integration is None:
            raise NotFound(f"no integration '{key}'")
        self._check_merchant()
        return IntegrationStatus(integration)
