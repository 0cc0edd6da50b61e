"""Partial edits: ``KEEP`` marks a field the caller left out (as opposed to ``None``, which
clears it)."""

from __future__ import annotations

from enum import Enum
from typing import Literal, TypeAlias


class _Keep(Enum):
    KEEP = "keep"


KEEP = _Keep.KEEP
Keep: TypeAlias = Literal[_Keep.KEEP]
