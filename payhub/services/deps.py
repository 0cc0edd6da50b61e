"""What every service needs from the outside, wired once by ``PayHub``."""

from __future__ import annotations

import attrs

from payhub.domain.ids import format_id
from payhub.ports import Clock, Randomness, SecretBox, Store


@attrs.frozen
class Deps:
    store: Store
    clock: Clock
    randomness: Randomness
    secrets: SecretBox

    def new_id(self, prefix: str) -> str:
        return format_id(prefix, self.randomness.token_bytes(16))
