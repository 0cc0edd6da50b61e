"""Who is calling: turn a presented API key into a ``Caller``, or refuse with 401."""

from __future__ import annotations

import attrs

from payhub.domain.environments import Environment
from payhub.domain.errors import Unauthenticated
from payhub.domain.keys import digests_match, key_digest, parse_key
from payhub.services.deps import Deps


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


class Authenticator:
    def __init__(self, deps: Deps) -> None:
        self._d = deps

    def authenticate(self, presented: str | None) -> Caller:
        # One message for every failure: a caller learns nothing about which keys exist.
        refused = Unauthenticated("a valid API key is required in the X-Api-Key header")
        if not presented:
            raise refused
        parsed = parse_key(presented)
        if parsed is None:
            raise refused
        with self._d.store.unit_of_work(readonly=True) as uow:
            key = uow.api_keys.get_by_key_id(parsed.key_id)
        digest = key_digest(self._d.secrets.digest_key, parsed.text)
        if key is None or not digests_match(key.digest, digest) or not key.active:
            raise refused
        return Caller(key.provider_id, key.environment, key.id, key.merchant_id)
