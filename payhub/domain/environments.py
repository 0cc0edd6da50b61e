"""Sandbox and production: two worlds that never mix (keys, credentials, short links)."""

from __future__ import annotations

from enum import StrEnum

from payhub.domain.errors import ValidationError


class Environment(StrEnum):
    SANDBOX = "Sandbox"
    PRODUCTION = "Production"

    @classmethod
    def parse(cls, value: str, field: str = "environment") -> Environment:
        """Accept the wire spelling (``Sandbox``/``Production``) in any letter case."""
        for env in cls:
            if value.strip().lower() == env.value.lower():
                return env
        raise ValidationError.for_field(field, "must be 'Sandbox' or 'Production'")
