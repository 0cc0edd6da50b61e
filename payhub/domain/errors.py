"""Domain errors: the one exception tree callers handle.

``PayHubError``
    ``ValidationError`` (400): the input breaks a rule; ``fields`` names each field at fault.
    ``Unauthenticated`` (401): no key, or a key that is unknown or revoked.
    ``Forbidden`` (403): a known caller asking for something its key may not do.
    ``NotFound`` (404): absent, or belonging to another tenant (the two are indistinguishable).
    ``Conflict`` (409): the request clashes with the current state (duplicates, illegal moves).
    ``RateLimited`` (429): a limit is reached; ``retry_after`` says in how many seconds to retry.
    ``Unavailable`` (503): a capability is not configured in this environment.
    ``GatewayError``: the payment gateway refused or failed; see ``payhub.domain.payments``.

The HTTP shell maps each class to its status in exactly one place
(``payhub_server.problems``); the in-process SDK raises them as they are.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class FieldError:
    """One field at fault: a JSON-pointer-like dotted path and what is wrong with it."""

    field: str
    message: str


class PayHubError(Exception):
    """Base of every error payhub raises on purpose."""

    status = 500
    code = "internal-error"
    title = "Internal error"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class ValidationError(PayHubError):
    status = 400
    code = "validation-error"
    title = "Your request is not valid"

    def __init__(self, detail: str, fields: list[FieldError] | None = None) -> None:
        super().__init__(detail)
        self.fields: list[FieldError] = list(fields or [])

    @classmethod
    def for_field(cls, field: str, message: str) -> ValidationError:
        """The common case: one field is wrong, and the detail says so."""
        return cls(f"{field}: {message}", [FieldError(field, message)])


class Unauthenticated(PayHubError):
    status = 401
    code = "unauthenticated"
    title = "Authentication required"


class Forbidden(PayHubError):
    status = 403
    code = "forbidden"
    title = "Not allowed for this key"


class NotFound(PayHubError):
    status = 404
    code = "not-found"
    title = "Not found"


class Conflict(PayHubError):
    status = 409
    code = "conflict"
    title = "Conflict with the current state"


class RateLimited(PayHubError):
    status = 429
    code = "rate-limited"
    title = "Too many requests"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = max(1, int(retry_after))


class Unavailable(PayHubError):
    status = 503
    code = "unavailable"
    title = "Not available"
