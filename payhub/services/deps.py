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
    # Where payers reach the public pages (pay, embed, receipt, approval); links in emails
    # and texts are built on it. ``PAYHUB_PUBLIC_URL`` sets it for a server.
    public_url: str = "http://localhost:8000"

    def page_url(self, path: str) -> str:
        return self.public_url.rstrip("/") + "/" + path.lstrip("/")

    def new_id(self, prefix: str) -> str:
        return format_id(prefix, self.randomness.token_bytes(16))
