"""PayPal's contract: the endpoints and models of ``paypal-server-sdk`` (PayPal's own
server SDK, generated from its REST API specifications).

Nothing is copied: the SDK's controllers give the endpoints (path template, method, body
model, answer model) and its models give, per object, the JSON field names (``_names``),
which are optional (``_optionals``; the rest are required) and each field's type, from
the ``Attributes:`` list the generator writes into every model's docstring (a model, a
``List[...]`` of one, an enumeration class, or ``str``/``int``/``bool``/``Any``).

``validate_request`` checks a request's method and path against the endpoints, and its
body's names, required fields, enumeration values and basic types against the model.
``validate_answer`` checks an answer's names, enumerations and types (not requiredness:
answers may be minimal) against the endpoint's answer model.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import cache
from typing import Any

import attrs
import paypalserversdk.controllers
import paypalserversdk.models

from tests.gateways.contracts import ContractViolation


@attrs.frozen
class Endpoint:
    method: str
    template: str
    pattern: re.Pattern[str]
    body: str | None  # the body's type as the SDK names it (a model or List[model])
    answer: str | None


def validate_request(method: str, path: str, body: object | None) -> Endpoint:
    """Raise ``ContractViolation`` unless PayPal documents this call with this body."""
    endpoint = endpoint_for(method, path)
    if body is None or body == {}:
        return endpoint  # an empty body: the endpoints here all take an optional one
    if endpoint.body is None:
        raise ContractViolation(f"{method} {endpoint.template} takes no body")
    _check(endpoint.body, body, "body", answer=False)
    return endpoint


def validate_answer(method: str, path: str, body: object) -> None:
    """Raise ``ContractViolation`` if an answer carries what the answer model lacks."""
    endpoint = endpoint_for(method, path)
    if endpoint.answer is None:
        raise ContractViolation(f"{method} {endpoint.template} answers no body")
    _check(endpoint.answer, body, "answer", answer=True)


def endpoint_for(method: str, path: str) -> Endpoint:
    for endpoint in endpoints():
        if endpoint.method == method and endpoint.pattern.fullmatch(path):
            return endpoint
    raise ContractViolation(f"PayPal's SDK has no endpoint {method} {path}")


@cache
def endpoints() -> tuple[Endpoint, ...]:
    found = []
    package = paypalserversdk.controllers
    for info in pkgutil.iter_modules(package.__path__):
        source = inspect.getsource(importlib.import_module(f"{package.__name__}.{info.name}"))
        for chunk in re.split(r"\n    def ", source)[1:]:
            path = re.search(r'\.path\("([^"]+)"\)', chunk)
            verb = re.search(r"\.http_method\(HttpMethodEnum\.(\w+)\)", chunk)
            if not (path and verb):
                continue
            body = re.search(r"\bbody -- ([\w\[\]]+) --", chunk)
            answer = re.search(r"\.deserialize_into\((\w+)\.from_dictionary\)", chunk)
            template = path.group(1)
            pattern = re.compile(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)))
            found.append(
                Endpoint(
                    verb.group(1),
                    template,
                    pattern,
                    body.group(1) if body else None,
                    answer.group(1) if answer else None,
                )
            )
    return tuple(found)


@cache
def _classes() -> dict[str, type]:
    found: dict[str, type] = {}
    package = paypalserversdk.models
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                found[name] = value
    return found


@cache
def _fields(model: type) -> dict[str, tuple[str, str, bool]]:
    """JSON name -> (python name, type as the SDK writes it, required)."""
    doc = inspect.getdoc(model) or ""
    types = dict(re.findall(r"^    (\w+) \(([^)]+)\):", doc, re.MULTILINE))
    optional = set(getattr(model, "_optionals", ()))
    return {
        json_name: (name, types.get(name, "Any"), name not in optional)
        for name, json_name in model._names.items()  # type: ignore[attr-defined]
    }


def _enum_values(kind: type) -> set[str]:
    return {v for k, v in vars(kind).items() if k.isupper() and isinstance(v, str)}


def _check(kind: str, value: object, where: str, *, answer: bool) -> None:  # noqa: PLR0912
    if kind.startswith("List[") and kind.endswith("]"):
        if not isinstance(value, list):
            raise ContractViolation(f"{where} must be an array")
        for index, item in enumerate(value):
            _check(kind[5:-1], item, f"{where}[{index}]", answer=answer)
        return
    simple = {"str": str, "int": int, "bool": bool, "float": (int, float)}
    if kind in simple:
        expected: Any = simple[kind]
        ok = isinstance(value, expected) and not (kind == "int" and isinstance(value, bool))
        if not ok:
            raise ContractViolation(f"{where}: {value!r} is not a {kind}")
        return
    found = _classes().get(kind)
    if found is None:  # Any, Dict[...], object: no further contract
        return
    if not hasattr(found, "_names"):  # an enumeration
        if value not in _enum_values(found):
            raise ContractViolation(
                f"{where}: {value!r} is not one of {kind} {sorted(_enum_values(found))}"
            )
        return
    if not isinstance(value, dict):
        raise ContractViolation(f"{where} must be a {kind} object")
    fields = _fields(found)
    for key, child in value.items():
        if key not in fields:
            raise ContractViolation(f"{where} ({kind}) has no field {key!r}")
        _check(fields[key][1], child, f"{where}.{key}", answer=answer)
    if not answer:
        missing = [key for key, (_, _, required) in fields.items() if required and key not in value]
        if missing:
            raise ContractViolation(f"{where} ({kind}) lacks required {missing}")
