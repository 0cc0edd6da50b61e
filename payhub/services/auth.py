"""Who is calling: turn a presented API key into a ``Caller``, or refuse with 401.

Verified keys are cached in process (``Deps.key_cache``: bounded, keyed by the key's public
id, holding only the stored HMAC digest and the ``Caller``, never the key): a presented key
is digested and compared with the cached digest in constant time, so the hot path reads no
database. An entry is trusted for ``KEY_TTL_S`` seconds after its read; a key revoked by
another process (the CLI, another server) stops working here within that bound, and one
revoked through this hub at once (``forget``).
"""

from __future__ import annotations

import attrs

from payhub.domain.environments import Environment
from payhub.domain.errors import Unauthenticated
from payhub.domain.keys import digests_match, key_digest, parse_key
from payhub.services.deps import Deps

# A portal session's caller: ``api_key_id`` is ``portal:<portal user id>`` (never a key's id).
PORTAL_CALLER = "portal:"


@attrs.frozen
class Caller:
    """An authenticated key: its provider, its world, and the one merchant it is bound to."""

    provider_id: str
    environment: Environment
    api_key_id: str
    merchant_id: str | None = None

    @property
    def is_merchant_key(self) -> bool:
        return self.merchant_id is not None


@attrs.frozen
class CachedKey:
    """What the cache keeps of a key: its stored digest and who it is (``None``: revoked)."""

    digest: str
    caller: Caller | None


def _refused() -> Unauthenticated:
    # One message for every failure: a caller learns nothing about which keys exist.
    return Unauthenticated("a valid API key is required in the X-Api-Key header")


class Authenticator:
    def __init__(self, deps: Deps) -> None:
        self._d = deps
        self._cache = deps.key_cache

    def cached(self, presented: str | None) -> Caller | None:
        """The caller from the cache, without I/O; ``None`` when the database must be read
        (``authenticate``). Raises ``Unauthenticated`` for a key that cannot be valid."""
        if not presented:
            raise _refused()
        parsed = parse_key(presented)
        if parsed is None:
            raise _refused()
        entry: CachedKey | None = self._cache.get(parsed.key_id)
        if entry is None:
            return None
        digest = key_digest(self._d.secrets.digest_key, parsed.text)
        if entry.caller is None or not digests_match(entry.digest, digest):
            raise _refused()
        return entry.caller

    def authenticate(self, presented: str | None) -> Caller:
        caller = self.cached(presented)
        if caller is not None:
            return caller
        parsed = parse_key(presented or "")
        assert parsed is not None  # ``cached`` refused anything else
        token = self._cache.begin()
        with self._d.store.unit_of_work(readonly=True) as uow:
            key = uow.api_keys.get_by_key_id(parsed.key_id)
        if key is None:
            raise _refused()
        found = Caller(key.provider_id, key.environment, key.id, key.merchant_id)
        self._cache.put(parsed.key_id, CachedKey(key.digest, found if key.active else None), token)
        digest = key_digest(self._d.secrets.digest_key, parsed.text)
        if not digests_match(key.digest, digest) or not key.active:
            raise _refused()
        return found

    def forget(self, key_id: str) -> None:
        """A key was revoked through this process: stop trusting its entry at once."""
        self._cache.invalidate(key_id)
