"""Reactions to domain events: what follows a change, registered once at composition.

A reaction is called by ``payhub.services.events.publish`` inside the unit of work of the
change, with the event just recorded. It must only write to that unit of work (typically one
job of its own, or outbox rows): nothing external, nothing slow. What it writes commits or
rolls back with the change, so a reaction runs exactly once per committed event; if it
raises, the whole change fails. Texting and email are one reaction
(``payhub.services.notices.Notices``); webhooks and the integrations register theirs the
same way (``hub.deps.reactions.register(...)``), without touching the services that emit.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from typing import Protocol

import attrs

from payhub.domain.events import DomainEvent
from payhub.ports import UnitOfWork


class Reaction(Protocol):
    def __call__(self, uow: UnitOfWork, event: DomainEvent) -> None: ...


@attrs.frozen
class Registered:
    name: str
    reaction: Reaction
    types: frozenset[str] | None  # None: every type


class Reactions:
    """The registry: reactions by name, called in registration order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: tuple[Registered, ...] = ()

    def register(self, name: str, reaction: Reaction, types: Collection[str] | None = None) -> None:
        """Add (or, under an existing name, replace) a reaction; ``types`` limits it to those
        event types (wire strings)."""
        entry = Registered(name, reaction, frozenset(types) if types is not None else None)
        with self._lock:
            kept = tuple(r for r in self._items if r.name != name)
            self._items = (*kept, entry)

    def unregister(self, name: str) -> None:
        with self._lock:
            self._items = tuple(r for r in self._items if r.name != name)

    def names(self) -> list[str]:
        return [r.name for r in self._items]

    def for_type(self, type_: str) -> list[Reaction]:
        return [r.reaction for r in self._items if r.types is None or type_ in r.types]
