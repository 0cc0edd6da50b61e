"""Input checks every record shares: trimmed text within a limit, and one error for all faults.

Record validators collect ``FieldError``s for every field of a request and raise once, so a
caller learns about every field at fault in one response.
"""

from __future__ import annotations

from payhub.domain.errors import FieldError, ValidationError


def clean_text(value: str | None, field: str, limit: int, errors: list[FieldError]) -> str | None:
    """Trimmed text of at most ``limit`` characters, blank as ``None``; faults go to ``errors``."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if len(value) > limit:
        errors.append(FieldError(field, f"must be at most {limit} characters"))
    elif any(ord(c) < 32 or ord(c) == 127 for c in value):
        errors.append(FieldError(field, "must not contain control characters"))
    return value


def collect(errors: list[FieldError], check: ValidationError | None) -> None:
    """Add a caught ``ValidationError``'s fields to ``errors``."""
    if check is not None:
        errors.extend(check.fields)


def raise_if_any(errors: list[FieldError]) -> None:
    """One ``ValidationError`` naming every field at fault, if there are any."""
    if errors:
        raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
