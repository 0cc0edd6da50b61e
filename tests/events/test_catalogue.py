"""The catalogue is consistent and documented: every type once, in the wire style, named in
docs/architecture.md with its object; the messaging reaction listens only to real types."""

from __future__ import annotations

import re
from pathlib import Path

from payhub.domain.events import CATALOGUE, TYPES, ObjectType, event_type
from payhub.services.notices import TYPES as NOTICE_TYPES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
_WIRE = re.compile(r"^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$")


def test_every_type_is_unique_and_in_the_wire_style() -> None:
    assert len(TYPES) == len(CATALOGUE)
    assert len({e.name for e in CATALOGUE}) == len(CATALOGUE)
    for entry in CATALOGUE:
        assert _WIRE.match(entry.type), entry.type
        assert entry.type.split(".")[0] == entry.object_type.value, entry
        assert event_type(entry.type) is entry
        assert entry.fires.endswith("."), entry
    assert event_type("invoice.exploded") is None
    assert {e.object_type for e in CATALOGUE} == set(ObjectType)


def test_the_architecture_doc_lists_every_type_with_its_object() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for entry in CATALOGUE:
        row = f"| `{entry.type}` | {entry.name} | `{entry.object_type.value}` |"
        assert row in text, row


def test_messaging_reacts_only_to_catalogued_types() -> None:
    assert NOTICE_TYPES <= TYPES
