"""payhub: payment middleware. One API in front of 21 payment gateways."""

from payhub.domain.environments import Environment
from payhub.domain.errors import (
    Conflict,
    FieldError,
    Forbidden,
    NotFound,
    PayHubError,
    RateLimited,
    Unauthenticated,
    Unavailable,
    ValidationError,
)
from payhub.domain.money import Money
from payhub.hub import PayHub

__all__ = [
    "Conflict",
    "Environment",
    "FieldError",
    "Forbidden",
    "Money",
    "NotFound",
    "PayHub",
    "PayHubError",
    "RateLimited",
    "Unauthenticated",
    "Unavailable",
    "ValidationError",
]
