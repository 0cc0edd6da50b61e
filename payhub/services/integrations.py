"""The merchant's integrations and their status (the portal's Integrations pages).

QuickBooks Online (``accounting-online``) reports its connection and last finished sync from
the accounting store; the integrations that cannot be connected yet (each arrives with its
own issue and its storage) report "not connected" with no sync.
"""

from __future__ import annotations

from payhub.domain.accounting import AccountingSystem, RunStatus
from payhub.domain.errors import NotFound
from payhub.domain.integrations import (
    BY_KEY,
    INTEGRATIONS,
    Integration,
    IntegrationStatus,
    LastSync,
)
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant


class Integrations:
    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def list(self) -> list[IntegrationStatus]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            return [_status(uow, merchant.id, i) for i in INTEGRATIONS]

    def get(self, key: str) -> IntegrationStatus:
        integration = BY_KEY.get(key)
        if integration is None:
            raise NotFound(f"no integration '{key}'")
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            return _status(uow, merchant.id, integration)


_ACCOUNTING = {s.value: s for s in AccountingSystem}


def _status(uow: UnitOfWork, merchant_id: str, integration: Integration) -> IntegrationStatus:
    system = _ACCOUNTING.get(integration.key)
    if system is None:
        return IntegrationStatus(integration)
    connection = uow.accounting.get(merchant_id, system)
    if connection is None or not connection.connected:
        return IntegrationStatus(integration)
    run = uow.accounting.latest_run(merchant_id, system, finished=True)
    last = None
    if run is not None:
        counts = ", ".join(f"{n} {name}" for name, n in sorted(run.counts.items())) or "nothing"
        errors = f"; {len(run.errors)} error(s)" if run.errors else ""
        last = LastSync(
            run.finished_at or run.updated_at, run.status is RunStatus.SUCCEEDED, counts + errors
        )
    return IntegrationStatus(
        integration,
        connected=True,
        account=connection.company_name or connection.company_id,
        environment=connection.environment.value if connection.environment else None,
        last_sync=last,
    )
