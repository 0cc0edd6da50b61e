"""docs/webhooks.md says what the code does: its catalogue is the core's, its retry schedule
is the one delivery uses, and its Python example verifies a real signed message."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from payhub.domain.events import CATALOGUE
from payhub.domain.webhooks import RETRY_SCHEDULE, new_secret, signed_headers

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def test_the_catalogue_table_is_the_cores() -> None:
    rows = re.findall(r"^\| `([a-z_.]+)` \| ([a-z_]+) \| (.+) \|$", DOC.read_text(), re.M)
    assert rows == [(e.type, e.object_type.value, e.fires) for e in CATALOGUE]


def test_the_documented_schedule_is_the_one_used() -> None:
    text = " ".join(DOC.read_text().split())
    assert "at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h" in text
    assert [int(d.total_seconds()) for d in RETRY_SCHEDULE] == [
        0, 5, 300, 1800, 7200, 18000, 36000, 36000,
    ]  # fmt: skip


def test_the_python_example_verifies_a_signed_message_and_refuses_a_forged_one() -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    secret = new_secret(bytes(range(32)))
    handled: list[tuple[str, Any]] = []
    seen: set[str] = set()
    namespace: dict[str, Any] = {
        "already_seen": lambda msg_id: msg_id in seen or seen.add(msg_id),
        "handle": lambda type_, data: handled.append((type_, data)),
    }
    exec(code.group(1).replace('"whsec_…"', repr(secret)), namespace)  # noqa: S102
    body = b'{"type":"invoice.paid","timestamp":"2026-01-02T03:04:05Z","data":{"id":"inv_1"}}'
    headers = signed_headers([secret], "evt_1", int(time.time()), body)
    namespace["receive"](body, headers)
    namespace["receive"](body, headers)  # a repeat is ignored
    assert handled == [("invoice.paid", {"id": "inv_1"})]
    with pytest.raises(PermissionError):
        namespace["receive"](body.replace(b"inv_1", b"inv_2"), headers)
