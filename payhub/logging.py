"""Structured logs (structlog) that never carry secrets.

Two nets: fields whose names mean a secret are replaced, and any value that looks
like a payhub API key, a bearer token or a card-like digit run is masked, whatever
its field is called.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

# Compared against the field name lower-cased with "_" and "-" removed: whole names, or
# names ending in a secret word ("apiSecret", "paymentMethodToken"), not mere substrings.
_SECRET_NAMES = re.compile(
    r"^(pan|cvc|cvv|cvv2|cookie|authorization)$"
    r"|(secret|password|passwd|token|apikey|credentials?|signature)$"
)
_SECRET_VALUES = [
    re.compile(r"ph[km]_(?:sandbox|live)_[a-z2-7]+_[a-z2-7]+"),
    re.compile(r"(?i)bearer\s+[A-Za-z0-9._~+/=-]+"),
    re.compile(r"\b(?:\d[ -]?){12,18}\d\b"),
]
REDACTED = "[redacted]"


def secret_name(name: str) -> bool:
    return bool(_SECRET_NAMES.search(name.replace("_", "").replace("-", "").lower()))


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        for pattern in _SECRET_VALUES:
            value = pattern.sub(REDACTED, value)
        return value
    if isinstance(value, dict):
        return {k: REDACTED if secret_name(str(k)) else _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v) for v in value]
    return value


def redact(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: drop secret-named fields, mask secret-looking values."""
    for key in list(event):
        if key != "event" and secret_name(key):
            event[key] = REDACTED
        else:
            event[key] = _scrub(event[key])
    return event


def configure_logging(fmt: str = "json", level: int = logging.INFO, stream: Any = None) -> None:
    """JSON lines by default (production); ``console`` for people at a terminal."""
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=False)
        if fmt == "console"
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            redact,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=stream or sys.stdout),
        cache_logger_on_first_use=False,
    )
