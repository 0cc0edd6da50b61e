"""What the merchant's pages share: role guards, reading typed form fields, form keys."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from litestar import Request

from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.money import parse_decimal
from payhub.domain.portal import PortalRole, token_text
from payhub_server.portal.session import hub_of, require_role

# Every merchant user reads every merchant page; these change things only some roles may.
MERCHANT_USERS = [require_role(PortalRole.OWNER, PortalRole.ADMIN, PortalRole.STAFF)]
MANAGERS = [require_role(PortalRole.OWNER, PortalRole.ADMIN)]
OWNERS = [require_role(PortalRole.OWNER)]
INPUT_MAX = 500  # longer text is cut before a service sees it (each has its own, lower limit)


def field_errors(error: ValidationError) -> dict[str, str]:
    """A service's 400 as messages by field name (the form's own names where they differ)."""
    return {f.field: f.message for f in error.fields} or {"form": error.detail}


def text(form: dict[str, str], name: str) -> str | None:
    value = form.get(name, "")[:INPUT_MAX].strip()
    return value or None


def day(form: dict[str, str] | Any, name: str, errors: list[FieldError]) -> date | None:
    """A ``YYYY-MM-DD`` day (what ``<input type=date>`` sends), blank as ``None``."""
    value = (form.get(name) or "").strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        errors.append(FieldError(name, "must be a date such as 2025-03-14"))
        return None


def decimal(form: dict[str, str], name: str, errors: list[FieldError]) -> Decimal | None:
    value = (form.get(name) or "").strip()
    if not value:
        return None
    try:
        return parse_decimal(value, name)
    except ValidationError as e:
        errors.extend(e.fields)
        return None


def whole(form: dict[str, str], name: str, errors: list[FieldError]) -> int | None:
    value = (form.get(name) or "").strip()
    if not value:
        return None
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        errors.append(FieldError(name, "must be a whole number"))
        return None
    return int(value)


def form_key(request: Request[Any, Any, Any]) -> str:
    """A fresh idempotency key for one rendering of a money-moving form: the same form sent
    twice carries the same key, so the second sending moves no money."""
    return "portal-" + token_text(hub_of(request).deps.randomness.token_bytes(18))
