"""A merchant's own API keys, as its owner manages them in the portal.

A merchant key speaks for that one merchant only (spec: Authentication 3). It is shown once,
at issue; afterwards only its hint (prefix and last characters) and label are listed.
Revoking is immediate in this process and within the key cache's lifetime elsewhere.
"""

from __future__ import annotations

from payhub.domain.accounts import ApiKey
from payhub.domain.errors import NotFound, ValidationError
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant
from payhub.services.operators import IssuedKey, issue_key

LABEL_MAX = 100


class MerchantKeys:
    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def _own(self, uow: UnitOfWork) -> tuple[str, list[ApiKey]]:
        merchant = find_merchant(uow, self._caller, self._reference)
        keys = [k for k in uow.api_keys.list(merchant.provider_id) if k.merchant_id == merchant.id]
        return merchant.id, sorted(keys, key=lambda k: (k.created_at, k.id), reverse=True)

    def list(self) -> list[ApiKey]:
        """The merchant's keys, newest first, revoked ones too (never the secret)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._own(uow)[1]

    def issue(self, label: str) -> IssuedKey:
        label = label.strip()
        if len(label) > LABEL_MAX:
            raise ValidationError.for_field("label", f"must be at most {LABEL_MAX} characters")
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            provider = uow.providers.get(merchant.provider_id)
            assert provider is not None
            return issue_key(uow, self._d, provider, merchant, label)

    def revoke(self, api_key_id: str) -> ApiKey:
        """Revoke one of this merchant's keys (404 for any other key); repeating is harmless."""
        with self._d.store.unit_of_work() as uow:
            _, keys = self._own(uow)
            key = next((k for k in keys if api_key_id in (k.id, k.key_id)), None)
            if key is None:
                raise NotFound(f"no API key '{api_key_id}' for this merchant")
            if key.revoked_at is None:
                uow.api_keys.revoke(key.id, self._d.clock.now())
            revoked = uow.api_keys.get(key.id)
            assert revoked is not None
        self._d.key_cache.invalidate(revoked.key_id)
        return revoked
