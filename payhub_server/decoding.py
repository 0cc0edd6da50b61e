"""The one decoding hook: how every JSON request body becomes Python values.

Every route that takes a JSON body reads it through ``PayHubRequest.json`` (the app's
request class); the pages' own JSON posts call ``decode_body``. One place decides, for all
of them:

* the body must say it is JSON (``application/json`` or ``application/<x>+json``): 415;
* at most ``MAX_DEPTH`` levels of arrays and objects, valid UTF-8, valid JSON: 400;
* a JSON number is read as a ``Decimal`` from its own digits, never through ``float``;
* every decimal field, given as a number or a string, passes ``money.decimal_fault``
  (finite, no negative zero, bounded digits), and a string there has the one text format
  of ``money.parse_decimal`` (no ``1_000``, ``+5``, spaces, exponent, non-ASCII digits);
* every integer fits in 64 bits;
* every string (and object key) is NFC and passes the text rule (``fields.text_fault``;
  tabs and line breaks allowed, single-line fields are checked again by their record).

Faults are collected and answered together, with the field path of each (400).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any, get_args

import msgspec
import msgspec.inspect as mi
from litestar import Request
from litestar.exceptions import HTTPException
from litestar.utils.empty import value_or_default

from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import normal_text, text_fault
from payhub.domain.money import decimal_fault, parse_decimal

MAX_DEPTH = 32
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_JSON = re.compile(r"^application/(?:[\w.+-]+\+)?json\s*(?:;.*)?$", re.IGNORECASE)
_decoder = msgspec.json.Decoder(float_hook=Decimal)


class BodyRefused(HTTPException):
    """A request body payhub cannot read; ``problems.from_framework`` answers it (after the
    API key check on ``/api``, so probing without a key learns nothing)."""

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str,
        fields: list[FieldError] | None = None,
    ) -> None:
        super().__init__(detail=detail, status_code=status)
        self.code = code
        self.title = title
        self.fields = list(fields or [])


def unsupported_media(content_type: str | None) -> BodyRefused:
    return BodyRefused(
        415,
        "unsupported-media-type",
        "Send JSON",
        f"this operation takes an application/json body, not {content_type or 'no content type'}",
    )


def _invalid(detail: str, fields: list[FieldError] | None = None) -> BodyRefused:
    return BodyRefused(400, "validation-error", "Your request is not valid", detail, fields or [])


def is_json(content_type: str | None) -> bool:
    return content_type is not None and _JSON.match(content_type) is not None


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[][{}]")


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels (brackets inside strings
    do not count). Cheap for ordinary bodies: only one with many brackets is scanned."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", body)):
        depth += 1 if bracket in (b"[", b"{") else -1
        if depth > limit:
            return True
    return False


def decode_body(body: bytes, content_type: str | None, target: Any = Any) -> Any:
    """The JSON ``body`` as Python values checked against ``target`` (the route's ``data``
    type), or ``BodyRefused``. The result still goes through the route's own conversion."""
    if not is_json(content_type):
        raise unsupported_media(content_type)
    if too_deep(body):
        raise _invalid(f"the JSON body nests more than {MAX_DEPTH} levels of arrays and objects")
    try:
        value = _decoder.decode(body)
    except UnicodeDecodeError:
        raise _invalid("the body is not valid UTF-8") from None
    except (msgspec.DecodeError, RecursionError) as e:
        reason = str(e).split(":", 1)[-1].strip() if isinstance(e, msgspec.DecodeError) else ""
        raise _invalid(
            "the request body is not valid JSON" + (f" ({reason})" if reason else "")
        ) from None
    errors: list[FieldError] = []
    value = _clean(value, _type_info(target), "", errors)
    if errors:
        raise _invalid("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
    return value


@lru_cache(maxsize=512)
def _cached_info(target: Any) -> mi.Type:
    return mi.type_info(target)


def _type_info(target: Any) -> mi.Type:
    try:
        return _cached_info(target)
    except TypeError:  # unhashable annotation
        return mi.type_info(target)


def _options(t: mi.Type) -> list[mi.Type]:
    """The alternatives ``t`` allows, with ``Annotated`` constraints unwrapped."""
    if not isinstance(t, mi.Metadata | mi.UnionType):
        return [t]
    while isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.UnionType):
        return [o for u in t.types for o in _options(u)]
    return [t]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _clean(value: Any, t: mi.Type, path: str, errors: list[FieldError]) -> Any:
    """``value`` with its strings in NFC and its decimal fields as ``Decimal``; every fault
    goes to ``errors`` under the field's path."""
    options = _options(t)
    field = path or "body"
    if isinstance(value, str):
        return _clean_text(value, options, field, errors)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | Decimal):
        return _clean_number(value, options, field, errors)
    if isinstance(value, list):
        return [
            _clean(item, _item_type(options, i), f"{field}[{i}]", errors)
            for i, item in enumerate(value)
        ]
    if isinstance(value, dict):
        fields, others = _members(options)
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            name = key if key in fields else normal_text(key)
            fault = None if key in fields else text_fault(name)
            if fault:
                errors.append(FieldError(_join(path, "(key)"), fault))
                continue
            cleaned[name] = _clean(item, fields.get(name, others), _join(path, name), errors)
        return cleaned
    return value


def _clean_text(value: str, options: list[mi.Type], field: str, errors: list[FieldError]) -> Any:
    if not value.isascii():
        value = normal_text(value)
    fault = text_fault(value, multiline=True)
    if fault:
        errors.append(FieldError(field, fault))
    elif any(isinstance(o, mi.DecimalType) for o in options) and not any(
        isinstance(o, mi.StrType) for o in options
    ):
        try:
            return parse_decimal(value, field)
        except ValidationError as e:
            errors.extend(e.fields)
    return value


def _clean_number(
    value: int | Decimal, options: list[mi.Type], field: str, errors: list[FieldError]
) -> Any:
    if isinstance(value, Decimal):  # a JSON number with a fraction or an exponent
        fault = decimal_fault(value)
        if fault:
            errors.append(FieldError(field, fault))
        return value
    if not INT_MIN <= value <= INT_MAX:
        errors.append(FieldError(field, "is out of range (at most 64 bits)"))
    elif any(isinstance(o, mi.DecimalType) for o in options):
        return Decimal(value)
    return value


def _item_type(options: list[mi.Type], index: int) -> mi.Type:
    for o in options:
        if isinstance(o, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
            return o.item_type
        if isinstance(o, mi.TupleType) and index < len(o.item_types):
            return o.item_types[index]
    return mi.AnyType()


@lru_cache(maxsize=1024)
def _fields_of(cls: type) -> dict[str, mi.Type]:
    """The wire name and type of each field of a struct, dataclass or TypedDict."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType | mi.DataclassType | mi.TypedDictType)
    return {f.encode_name: f.type for f in info.fields}


def _members(options: list[mi.Type]) -> tuple[dict[str, mi.Type], mi.Type]:
    """The types of an object's named fields, and of any other key's value."""
    for o in options:
        if isinstance(o, mi.StructType | mi.DataclassType | mi.TypedDictType):
            return _fields_of(o.cls), mi.AnyType()
        if isinstance(o, mi.DictType):
            return {}, o.value_type
    return {}, mi.AnyType()


def _data_type(request: Request[Any, Any, Any]) -> Any:
    """The route's ``data`` annotation, or ``Any`` for a route without one."""
    try:
        field = request.route_handler.parsed_fn_signature.parameters.get("data")
    except Exception:  # no route handler (should not happen for a body read)
        return Any
    return field.annotation if field is not None else Any


class PayHubRequest(Request[Any, Any, Any]):
    """Litestar's request with its JSON read by ``decode_body``."""

    async def json(self) -> Any:
        cached = value_or_default(self._connection_state.json, None)
        if cached is not None:
            return cached
        body = await self.body()
        value = decode_body(body or b"null", self.headers.get("content-type"), _data_type(self))
        self._json = self._connection_state.json = value
        return value


_NOT_QUERY = frozenset({"data", "request", "tenant", "hub", "state", "scope", "headers", "body"})


@lru_cache(maxsize=1024)
def _int_queries(handler: Any) -> tuple[str, ...]:
    """The wire names of ``handler``'s integer query parameters."""
    names = []
    for name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if name in _NOT_QUERY or (kwarg is not None and not hasattr(kwarg, "query")):
            continue  # a dependency
        if kwarg is not None and (getattr(kwarg, "header", None) or getattr(kwarg, "cookie", None)):
            continue
        annotation = field.annotation
        kinds = {annotation, *get_args(annotation)}
        if int in kinds and bool not in kinds:
            names.append(getattr(kwarg, "query", None) or name)
    return tuple(names)


async def check_query_numbers(request: Request[Any, Any, Any]) -> None:
    """The app's ``before_request``: an integer query parameter must fit in 64 bits (400),
    whatever range the route then allows. Path parameters are not integers in payhub."""
    path_params = set(request.path_params)
    faults = [
        FieldError(name, "is out of range (at most 64 bits)")
        for name in _int_queries(request.route_handler)
        if name not in path_params
        for value in request.query_params.getall(name, [])
        if _INT_TEXT.fullmatch(value.strip()) and not INT_MIN <= int(value) <= INT_MAX
    ]
    if faults:
        raise _invalid("; ".join(f"{e.field}: {e.message}" for e in faults), faults)


_INT_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
