"""What every service needs from the outside, wired once by ``PayHub``."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import attrs

from payhub.domain.gateways import GatewayCatalog
from payhub.domain.ids import format_id
from payhub.ports import Clock, Randomness, SecretBox, Snapshots, Store
from payhub.services.caches import FreshCache, Tally
from payhub.services.reactions import Reactions

# How long another process's change (a revoked key, a revoked link) may go unseen here.
KEY_TTL_S = 2.0
LINK_TTL_S = 2.0


@attrs.frozen
class Deps:
    store: Store
    clock: Clock
    randomness: Randomness
    secrets: SecretBox
    # The API's representation of objects, for events' data (payhub.wire.snapshots).
    snapshots: Snapshots
    # The gateways this hub offers and what each can do (the registry assembles it from the
    # gateway folders; the core never imports them).
    catalog: GatewayCatalog
    # Where payers reach the public pages (pay, embed, receipt, approval); links in emails
    # and texts are built on it. ``PAYHUB_PUBLIC_URL`` sets it for a server.
    public_url: str = "http://localhost:8000"
    # Process-wide caches of the hot paths, shared by every service of one hub: verified API
    # keys by key id (services/auth.py) and active short links by code (services/links.py).
    key_cache: FreshCache[str, Any] = attrs.field(
        factory=lambda: FreshCache(10_000, KEY_TTL_S), eq=False, repr=False
    )
    link_cache: FreshCache[str, Any] = attrs.field(
        factory=lambda: FreshCache(100_000, LINK_TTL_S), eq=False, repr=False
    )
    # Short-link opens counted in memory per (link id, UTC day), written in batches.
    open_tally: Tally[tuple[str, date], datetime] = attrs.field(factory=Tally, eq=False, repr=False)
    # What follows each domain event (messaging, webhooks, integrations): registered by the
    # composition root, called by ``services.events.publish`` in the change's unit of work.
    reactions: Reactions = attrs.field(factory=Reactions, eq=False, repr=False)

    def page_url(self, path: str) -> str:
        return self.public_url.rstrip("/") + "/" + path.lstrip("/")

    def new_id(self, prefix: str) -> str:
        return format_id(prefix, self.randomness.token_bytes(16))
