"""Readable tables for people, JSON for scripts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import click
from tabulate import tabulate

from payhub.domain.money import Money, format_money


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "-"


def money(m: Money) -> str:
    """An amount as the pages show it (``$1,234.50``, ``EUR 1,234.50``)."""
    return format_money(m)


def table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], empty: str = "nothing yet"
) -> None:
    if not rows:
        click.echo(f"({empty})")
        return
    click.echo(tabulate(rows, headers=headers, tablefmt="simple"))


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, default=str))
