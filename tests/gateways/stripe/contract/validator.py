"""Validate Stripe form bodies and query strings against the stripe package's param TypedDicts.

stripe-python ships, generated from Stripe's OpenAPI spec, one ``TypedDict`` per endpoint's
parameters (``stripe.params.PaymentIntentCreateParams`` …): keys, nesting, which keys are
required (``__required_keys__``) and ``Literal`` enums. A request is decoded from Stripe's
bracket notation (``a[b][c]=v``, ``l[]=v``, ``l[0]=v``) back into nested dicts and walked
through those types. Form values are strings on the wire, so an ``int`` must be digits and a
``bool`` ``true``/``false``.
"""

from __future__ import annotations

import re
import sys
import typing
from collections.abc import Sequence
from typing import Any, ForwardRef, NotRequired, Required
from urllib.parse import parse_qsl

import httpx
from stripe import params
from stripe._request_options import RequestOptions
from typing_extensions import is_typeddict

from tests.gateways.contracts import ContractViolation

ROUTES: list[tuple[str, re.Pattern[str], type]] = [
    ("POST", re.compile(r"/v1/payment_intents"), params.PaymentIntentCreateParams),
    ("GET", re.compile(r"/v1/payment_intents/[^/]+"), params.PaymentIntentRetrieveParams),
    ("POST", re.compile(r"/v1/payment_intents/[^/]+/capture"), params.PaymentIntentCaptureParams),
    ("POST", re.compile(r"/v1/payment_intents/[^/]+/cancel"), params.PaymentIntentCancelParams),
    ("POST", re.compile(r"/v1/refunds"), params.RefundCreateParams),
    ("POST", re.compile(r"/v1/customers"), params.CustomerCreateParams),
    ("POST", re.compile(r"/v1/payment_methods/[^/]+/attach"), params.PaymentMethodAttachParams),
    ("POST", re.compile(r"/v1/setup_intents"), params.SetupIntentCreateParams),
    ("POST", re.compile(r"/v1/setup_intents/[^/]+/cancel"), params.SetupIntentCancelParams),
]
# The SDK's own call options (api_key, idempotency_key …): sent as headers, never as params.
_OPTIONS = frozenset(RequestOptions.__annotations__)


def decode(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Stripe's bracket notation back into nested dicts and lists."""
    root: dict[str, Any] = {}
    for key, value in pairs:
        head, _, rest = key.partition("[")
        parts = [head] + (re.findall(r"([^\[\]]*)\]", "[" + rest) if rest else [])
        node: Any = root
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            following = None if last else parts[i + 1]
            fresh: Any = [] if following == "" or (following or "x").isdigit() else {}
            if isinstance(node, list):
                if part == "" or (not last and not node):
                    node.append(value if last else fresh)
                    node = node[-1]
                    continue
                index = int(part)
                while len(node) <= index:
                    node.append(None)
                if last:
                    node[index] = value
                else:
                    node[index] = node[index] if node[index] is not None else fresh
                    node = node[index]
            elif last:
                node[part] = value
            else:
                node = node.setdefault(part, fresh)
    return root


def _resolve(kind: Any, module: str) -> Any:
    if isinstance(kind, str):
        kind = ForwardRef(kind)
    if isinstance(kind, ForwardRef):
        namespace = {**vars(typing), **vars(sys.modules[module])}
        kind = eval(kind.__forward_arg__, namespace)  # noqa: S307 - the package's own annotation
    if typing.get_origin(kind) in (NotRequired, Required):
        kind = typing.get_args(kind)[0]
        return _resolve(kind, module)
    return kind


def check(kind: Any, value: Any, path: str, module: str, top: bool = False) -> list[str]:
    """Every way a decoded value departs from the annotation ``kind`` (empty: it conforms)."""
    kind = _resolve(kind, module)
    origin = typing.get_origin(kind)
    if origin is typing.Union or type(kind).__name__ == "UnionType":
        options = [_resolve(k, module) for k in typing.get_args(kind)]
        results = [check(k, value, path, module) for k in options]
        if any(not r for r in results):
            return []
        # Say what is wrong against the form of the same shape (a hash for a hash …).
        shaped = [
            r
            for k, r in zip(options, results, strict=True)
            if isinstance(value, dict) == is_typeddict(k)
            and typing.get_origin(k) is not typing.Literal
        ]
        return min(shaped or results, key=len)
    if origin is typing.Literal:
        allowed = typing.get_args(kind)
        return [] if value in allowed else [f"{path}: {value!r} is not one of {list(allowed)}"]
    if is_typeddict(kind):
        return _check_dict(kind, value, path, top)
    if kind in _SCALARS:
        return _check_scalar(kind, value, path)
    if origin in (list, Sequence) or kind is list:
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        inner = (typing.get_args(kind) or (Any,))[0]
        return [e for i, v in enumerate(value) for e in check(inner, v, f"{path}[{i}]", module)]
    if origin is dict or kind is dict:
        if not isinstance(value, dict):
            return [f"{path}: expected a hash"]
        return [
            f"{path}[{k}]: expected a string" for k, v in value.items() if not isinstance(v, str)
        ]
    if getattr(origin or kind, "__name__", "") == "UntypedStripeObject":
        return [] if isinstance(value, dict) else [f"{path}: expected a hash"]
    return []  # Any, or a type the wire cannot carry: nothing to compare


_SCALARS = (str, int, bool, float)


def _check_scalar(kind: type, value: Any, path: str) -> list[str]:
    """Form values are strings: an int is digits, a bool is true/false."""
    if kind is str:
        return [] if isinstance(value, str) else [f"{path}: expected a string"]
    if kind is bool:
        return [] if value in ("true", "false") else [f"{path}: expected true or false"]
    pattern = r"-?\d+" if kind is int else r"-?\d+(\.\d+)?"
    ok = isinstance(value, str) and re.fullmatch(pattern, value) is not None
    return [] if ok else [f"{path}: expected {'an integer' if kind is int else 'a number'}"]


def _check_dict(kind: Any, value: Any, path: str, top: bool) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path or 'params'}: expected a hash of {kind.__name__}"]
    declared = {k: v for k, v in kind.__annotations__.items() if not (top and k in _OPTIONS)}
    errors = [
        f"{path}[{name}]: required by {kind.__name__}" if path else f"{name}: required"
        for name in kind.__required_keys__
        if name in declared and name not in value
    ]
    for name, item in value.items():
        where = f"{path}[{name}]" if path else name
        if name not in declared:
            errors.append(f"{where}: unknown parameter of {kind.__name__}")
            continue
        errors.extend(check(declared[name], item, where, kind.__module__))
    return errors


def params_class(method: str, path: str) -> type:
    for verb, pattern, kind in ROUTES:
        if verb == method and pattern.fullmatch(path):
            return kind
    raise ContractViolation(f"{method} {path} is not a Stripe endpoint payhub may call")


def validate(method: str, path: str, pairs: Sequence[tuple[str, str]]) -> None:
    """Raise ``ContractViolation`` unless the params fit the endpoint's TypedDict."""
    kind = params_class(method, path)
    errors = check(kind, decode(pairs), "", kind.__module__, top=True)
    if errors:
        raise ContractViolation(f"{method} {path}: " + "; ".join(errors))


def validate_request(request: httpx.Request) -> None:
    if request.method == "GET":
        pairs = list(request.url.params.multi_items())
    else:
        pairs = parse_qsl(request.content.decode(), keep_blank_values=True)
    validate(request.method, request.url.path, pairs)
