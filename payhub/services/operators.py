"""The operator's jobs: provider accounts and API keys (run from the CLI, never over HTTP)."""

from __future__ import annotations

import attrs

from payhub.domain.accounts import (
    PROVIDER_NAME_MAX,
    ApiKey,
    Merchant,
    Provider,
    clean_external_reference,
    clean_name,
)
from payhub.domain.environments import Environment
from payhub.domain.errors import NotFound, ValidationError
from payhub.domain.keys import (
    KEY_ID_BYTES,
    KEY_SECRET_BYTES,
    KeyKind,
    compose_key,
    display_hint,
    key_digest,
)
from payhub.ports import UnitOfWork
from payhub.services.deps import Deps


@attrs.frozen
class IssuedKey:
    """A key as issued: ``secret`` is the only copy that will ever exist in clear."""

    record: ApiKey
    secret: str = attrs.field(repr=False)


@attrs.frozen
class KeyListing:
    key: ApiKey
    provider_name: str
    merchant_reference: str | None


class Operators:
    def __init__(self, deps: Deps) -> None:
        self._d = deps

    def create_provider(
        self, name: str, environment: Environment = Environment.SANDBOX
    ) -> tuple[Provider, IssuedKey]:
        """A new provider account and its first provider key, in one transaction."""
        name = clean_name(name, "name", PROVIDER_NAME_MAX)
        provider = Provider(
            id=self._d.new_id("prv"),
            name=name,
            environment=environment,
            created_at=self._d.clock.now(),
        )
        with self._d.store.unit_of_work() as uow:
            uow.providers.add(provider)
            issued = self._issue(uow, provider, None, "initial key")
        return provider, issued

    def bootstrap(self) -> tuple[Provider, IssuedKey] | None:
        """On a fresh database, a sandbox provider so the first request can be made at once."""
        with self._d.store.unit_of_work() as uow:
            if uow.providers.count():
                return None
        return self.create_provider("Sandbox provider", Environment.SANDBOX)

    def list_providers(self) -> list[Provider]:
        with self._d.store.unit_of_work() as uow:
            return uow.providers.list()

    def issue_key(
        self,
        provider_id: str | None = None,
        merchant_reference: str | None = None,
        label: str = "",
    ) -> IssuedKey:
        """A provider key, or with ``merchant_reference`` a key for that one merchant.

        ``provider_id`` may be left out when exactly one provider has the merchant
        (or, for a provider key, when there is only one provider).
        """
        with self._d.store.unit_of_work() as uow:
            provider, merchant = self._resolve(uow, provider_id, merchant_reference)
            return self._issue(uow, provider, merchant, label)

    def _resolve(
        self, uow: UnitOfWork, provider_id: str | None, merchant_reference: str | None
    ) -> tuple[Provider, Merchant | None]:
        if provider_id is not None:
            provider = uow.providers.get(provider_id)
            if provider is None:
                raise NotFound(f"no provider '{provider_id}'")
            candidates = [provider]
        else:
            candidates = uow.providers.list()
        if merchant_reference is None:
            if len(candidates) != 1:
                raise ValidationError.for_field(
                    "provider", "name the provider: there is not exactly one"
                )
            return candidates[0], None
        ref = clean_external_reference(merchant_reference, "merchant")
        found = [
            (p, m)
            for p in candidates
            if (m := uow.merchants.get_by_reference(p.id, ref)) is not None
        ]
        if not found:
            raise NotFound(f"no merchant with externalReference '{ref}'")
        if len(found) > 1:
            raise ValidationError.for_field(
                "provider", f"several providers have a merchant '{ref}': name the provider"
            )
        return found[0]

    def _issue(
        self, uow: UnitOfWork, provider: Provider, merchant: Merchant | None, label: str
    ) -> IssuedKey:
        return issue_key(uow, self._d, provider, merchant, label)

    def list_keys(self, provider_id: str | None = None) -> list[KeyListing]:
        with self._d.store.unit_of_work() as uow:
            names = {p.id: p.name for p in uow.providers.list()}
            out = []
            for key in uow.api_keys.list(provider_id):
                merchant = uow.merchants.get(key.merchant_id) if key.merchant_id else None
                out.append(
                    KeyListing(
                        key,
                        names.get(key.provider_id, "?"),
                        merchant.external_reference if merchant else None,
                    )
                )
            return out

    def revoke_key(self, api_key_id: str) -> ApiKey:
        """Revoke by the key's record id (``key_…``) or its public id; repeating is harmless."""
        with self._d.store.unit_of_work() as uow:
            key = uow.api_keys.get(api_key_id) or uow.api_keys.get_by_key_id(api_key_id)
            if key is None:
                raise NotFound(f"no API key '{api_key_id}'")
            uow.api_keys.revoke(key.id, self._d.clock.now())
            revoked = uow.api_keys.get(key.id)
            assert revoked is not None
        # This process stops accepting the key at once; others within KEY_TTL_S.
        self._d.key_cache.invalidate(revoked.key_id)
        return revoked

    def list_merchants(self, provider_id: str | None = None) -> list[Merchant]:
        """Every merchant (of one provider), read page by page rather than as one table."""
        out: list[Merchant] = []
        with self._d.store.unit_of_work() as uow:
            providers = [provider_id] if provider_id else [p.id for p in uow.providers.list()]
            for pid in providers:
                after: str | None = None
                while True:
                    page = uow.merchants.list(pid, after=after, limit=500)
                    out.extend(page)
                    if len(page) < 500:
                        break
                    after = page[-1].external_reference
        return out


def issue_key(
    uow: UnitOfWork, deps: Deps, provider: Provider, merchant: Merchant | None, label: str
) -> IssuedKey:
    """A new provider key, or with ``merchant`` a key for that one merchant, added in ``uow``."""
    kind = KeyKind.PROVIDER if merchant is None else KeyKind.MERCHANT
    parsed = compose_key(
        kind,
        provider.environment,
        deps.randomness.token_bytes(KEY_ID_BYTES),
        deps.randomness.token_bytes(KEY_SECRET_BYTES),
    )
    record = ApiKey(
        id=deps.new_id("key"),
        key_id=parsed.key_id,
        provider_id=provider.id,
        merchant_id=merchant.id if merchant else None,
        kind=kind,
        environment=provider.environment,
        digest=key_digest(deps.secrets.digest_key, parsed.text),
        hint=display_hint(parsed),
        label=label.strip()[:100],
        created_at=deps.clock.now(),
    )
    uow.api_keys.add(record)
    return IssuedKey(record, parsed.text)
