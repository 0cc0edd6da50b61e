"""Validate a request body against checkout-sdk's annotated request classes and enums.

The SDK declares each request as a plain class whose class-level annotations name the fields
and their types (``amount: int``, ``currency: Currency``, ``source: PaymentRequestSource``);
this walks a JSON body through those annotations. See SOURCE for what is and is not checked.
"""

from __future__ import annotations

import json
import re
import typing
import warnings
from enum import Enum
from typing import Any

import httpx
from checkout_sdk.customers.customers import CustomerRequest
from checkout_sdk.instruments.instruments import CreateTokenInstrumentRequest
from checkout_sdk.payments import payments as sdk

from tests.gateways.contracts import ContractViolation

# Which SDK class each route's body is, and which fields the API reference requires.
_ROUTES: list[tuple[str, re.Pattern[str], type | None]] = [
    ("POST", re.compile(r"/payments"), sdk.PaymentRequest),
    ("POST", re.compile(r"/payments/[^/]+/captures"), sdk.CaptureRequest),
    ("POST", re.compile(r"/payments/[^/]+/refunds"), sdk.RefundRequest),
    ("POST", re.compile(r"/payments/[^/]+/voids"), sdk.VoidRequest),
    ("GET", re.compile(r"/payments/[^/]+"), None),
    ("POST", re.compile(r"/customers"), CustomerRequest),
    ("POST", re.compile(r"/instruments"), CreateTokenInstrumentRequest),
]
_REQUIRED: dict[type, tuple[str, ...]] = {
    sdk.PaymentRequest: ("currency", "source"),
    sdk.PaymentRequestTokenSource: ("type", "token"),
    sdk.PaymentRequestIdSource: ("type", "id"),
    CreateTokenInstrumentRequest: ("type", "token"),
}


def _sources() -> dict[str, type]:
    """``source.type`` value -> the SDK's source class (each subclass sets its own type)."""
    found: dict[str, type] = {}
    for cls in sdk.PaymentRequestSource.__subclasses__():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # the SDK's renamed classes
                value = cls().type  # type: ignore[call-arg]
        except TypeError:
            continue
        found[value.value if isinstance(value, Enum) else str(value)] = cls
    return found


SOURCES = _sources()


def fields_of(cls: type) -> dict[str, Any]:
    """The annotated fields of an SDK request class, its bases' included."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        hints.update(getattr(klass, "__annotations__", {}))
    return hints


def check_body(cls: type, body: Any, where: str = "") -> list[str]:
    """Every way ``body`` departs from the SDK class ``cls`` (empty: it conforms)."""
    if not isinstance(body, dict):
        return [f"{where or 'body'}: expected an object, got {type(body).__name__}"]
    if cls is sdk.PaymentRequestSource:
        kind = body.get("type")
        if kind not in SOURCES:
            return [f"{where}.type: {kind!r} is not a PaymentSourceType the SDK models"]
        cls = SOURCES[kind]
    errors: list[str] = []
    declared = fields_of(cls)
    for name in _REQUIRED.get(cls, ()):
        if name not in body:
            errors.append(f"{where}.{name}: required".lstrip("."))
    for name, value in body.items():
        path = f"{where}.{name}".lstrip(".")
        if name not in declared:
            errors.append(f"{path}: not a field of {cls.__name__}")
            continue
        errors.extend(_check_value(declared[name], value, path))
    return errors


def _check_value(kind: Any, value: Any, path: str) -> list[str]:
    origin = typing.get_origin(kind)
    if origin is typing.Union:
        options = [_check_value(k, value, path) for k in typing.get_args(kind)]
        return [] if any(not o for o in options) else options[0]
    if kind is bool:
        return [] if isinstance(value, bool) else [f"{path}: expected a boolean"]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected an integer"]
    if kind is str:
        return [] if isinstance(value, str) else [f"{path}: expected a string"]
    if kind is dict:
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    if kind is list or origin is list:
        return [] if isinstance(value, list) else [f"{path}: expected an array"]
    if isinstance(kind, type) and issubclass(kind, Enum):
        allowed = {m.value for m in kind}
        return [] if value in allowed else [f"{path}: {value!r} is not one of {kind.__name__}"]
    if isinstance(kind, type):
        if kind.__module__ == "datetime":
            return [] if isinstance(value, str) else [f"{path}: expected a date-time string"]
        return check_body(kind, value, path)
    return []  # an annotation the SDK leaves open


def route_class(method: str, path: str) -> type | None:
    for verb, pattern, cls in _ROUTES:
        if verb == method and pattern.fullmatch(path):
            return cls
    raise ContractViolation(f"{method} {path} is not a Checkout.com route payhub may use")


def validate(method: str, path: str, body: Any) -> None:
    """Raise ``ContractViolation`` unless the body is what the SDK models for the route."""
    cls = route_class(method, path)
    if cls is None:
        if body not in (None, {}):
            raise ContractViolation(f"{method} {path} takes no body")
        return
    errors = check_body(cls, body)
    if errors:
        raise ContractViolation(f"{method} {path}: " + "; ".join(errors))


def validate_request(request: httpx.Request) -> None:
    body = json.loads(request.content) if request.content else None
    validate(request.method, request.url.path, body)
