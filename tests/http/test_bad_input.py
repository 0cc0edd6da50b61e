"""No input gets a 500: every route of the app, read from its route table, with each class of
bad input, with and without an API key.

Classes: bodies nested thousands of levels deep, invalid UTF-8, a non-JSON content type on a
JSON route, an oversized body, NaN / Infinity / badly written numbers in every decimal field
of every JSON body (found from the route's own ``data`` type), integers past 64 bits in every
integer query parameter. Each answer is a 4xx ``application/problem+json`` carrying the
request id of its ``X-Request-Id`` header; with a key, it is the 400, 413 or 415 of the class.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args

import httpx
import msgspec.inspect as mi
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.system import FixedClock
from payhub_server.cardguard import MAX_BODY
from payhub_server.decoding import MAX_DEPTH, too_deep
from tests.conftest import Account
from tests.http.support import PROBLEM_JSON, Operation, operations

Client = TestClient[Litestar]

# The routes whose handler reads its JSON body itself (the pages' posts), by template.
RAW_JSON_POSTS = {"POST /pay/{token}/payments", "POST /pay/{token}/sms-consent"}
# Posts that take a form, not JSON (webhooks, the approval page): bad bytes still get no 5xx.
FORM_POSTS = {"POST /webhooks/twilio/sms", "POST /webhooks/twilio/status", "POST /approve/{token}"}
PATH_VALUES = {"ref": "shop-1", "gateway": "simulator", "token": "t" * 24}
BAD_DECIMALS = [
    '"NaN"',
    '"Infinity"',
    '"-Infinity"',
    '"sNaN"',
    "1e400",
    "1e-400",
    "-0.0",
    '"-0.00"',
    '"1_000"',
    '"+5"',
    '" 5"',
    '"5 "',
    '"1e3"',
    '"\u0661\u0660"',  # Arabic-Indic digits
    '"\uff11\uff10"',  # fullwidth digits
    '".5"',
    '"05"',
    "123456789012345678901234567890",
]
BIG_INTS = [str(2**63), str(2**64), str(10**30), str(-(2**63) - 1)]


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock) -> Iterator[PayHub]:
    hub = PayHub.open(
        store_url, key_file=key_file, clock=clock, gateways={"simulator": SimulatorGateway()}
    )
    yield hub
    hub.close()


@pytest.fixture
def key(
    client: Client, sandbox_provider: Account, make_merchant: Callable[..., dict[str, Any]]
) -> dict[str, str]:
    make_merchant(sandbox_provider, "shop-1")
    response = client.put(
        "/api/merchant-accounts/shop-1/credentials/simulator",
        json={"apiSecret": "sim-secret", "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    assert response.status_code == 200, response.text
    return {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}


def _all(app: Litestar) -> list[Operation]:
    return operations(app, prefix="")


def _handler(app: Litestar, op: Operation) -> Any:
    for route in app.routes:
        if route.path == op.route:
            for handler in getattr(route, "route_handlers", []):
                if op.method in handler.http_methods:
                    return handler
    raise AssertionError(f"no handler for {op}")


def _data_type(app: Litestar, op: Operation) -> Any:
    field = _handler(app, op).parsed_fn_signature.parameters.get("data")
    return None if field is None else field.annotation


def json_operations(app: Litestar) -> list[Operation]:
    return [op for op in _all(app) if _data_type(app, op) is not None or str(op) in RAW_JSON_POSTS]


def body_operations(app: Litestar) -> list[Operation]:
    return [op for op in _all(app) if op.method in ("POST", "PUT", "PATCH")]


def send(
    client: Client,
    op: Operation,
    content: bytes | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
) -> httpx.Response:
    values = {name: PATH_VALUES.get(name, "nope") for name in op.params}
    head = {**(headers or {})}
    if content is not None:
        head["content-type"] = content_type
    return client.request(
        op.method, op.path(**values), content=content, headers=head, params=params
    )


def refused(response: httpx.Response, allowed: set[int]) -> dict[str, Any]:
    """A problem+json with one of ``allowed`` statuses and the request id of the header."""
    where = (response.request.method, response.request.url.path, response.text[:300])
    assert response.status_code in allowed, (response.status_code, where)
    assert response.headers["content-type"].startswith(PROBLEM_JSON), where
    body: dict[str, Any] = response.json()
    assert body["status"] == response.status_code
    assert body["requestId"] == response.headers["x-request-id"], where
    return body


def no_server_error(response: httpx.Response) -> None:
    where = (response.request.method, response.request.url.path, response.text[:300])
    assert response.status_code < 500, where
    assert response.headers.get("x-request-id"), where


def check(
    app: Litestar, op: Operation, response: httpx.Response, with_key: bool, expected: set[int]
) -> None:
    """What a bad body sent to ``op`` must get: ``expected`` with a key; on ``/api`` without a
    key the 401 comes first (probing learns nothing). A form post, or a post that takes no
    body (send, void, pause...) and so never reads it, gets no 5xx and a problem if refused."""
    form = str(op) in FORM_POSTS or op.route.startswith("/portal")  # the portal's HTML forms
    if form or (op not in json_operations(app) and response.status_code != 413):
        no_server_error(response)
        if response.status_code >= 400 and not form:
            refused(response, {response.status_code})
    elif op.route.startswith("/api") and not with_key:
        refused(response, {401} | expected)
    else:
        refused(response, expected)


# --- the classes, on every route --------------------------------------------------------------


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("with_key", [True, False], ids=["key", "no-key"])
def test_deep_invalid_and_oversized_bodies_on_every_route(
    client: Client, app: Litestar, key: dict[str, str], with_key: bool
) -> None:
    headers = key if with_key else {}
    ops = body_operations(app)
    assert len(ops) > 40  # the walk really covers the app
    deep = b"[" * 5000 + b"]" * 5000
    deep_object = b'{"a":' * 3000 + b"1" + b"}" * 3000
    for op in ops:
        for body in (deep, deep_object, b'{"a": "\xff\xfe"}', b"\xc0\x80", b"\xed\xa0\x80"):
            check(app, op, send(client, op, body, headers=headers), with_key, {400})
        oversized = b'{"a": "' + b"x" * MAX_BODY + b'"}'
        check(app, op, send(client, op, oversized, headers=headers), with_key, {413})


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("with_key", [True, False], ids=["key", "no-key"])
def test_a_json_route_refuses_any_other_content_type_with_415(
    client: Client, app: Litestar, key: dict[str, str], with_key: bool
) -> None:
    headers = key if with_key else {}
    ops = json_operations(app)
    assert len(ops) > 20
    for op in ops:
        for content_type in (
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/xml",
            "application/jsonx",
        ):
            response = send(client, op, b"{}", content_type, headers={**headers})
            body = refused(
                response, {415} if with_key or not op.route.startswith("/api") else {401}
            )
            if response.status_code == 415:
                assert body["type"] == "/problems/unsupported-media-type"


def _sample(  # noqa: PLR0912 - one branch per JSON type
    t: mi.Type, bad: str, path: str, found: list[str], depth: int = 0, text: bool = False
) -> Any:
    """A JSON value of type ``t`` with the placeholder ``bad`` in every decimal field (or with
    ``text``, in every string field); their paths go to ``found``; plain values elsewhere."""
    while isinstance(t, mi.Metadata):
        t = t.type
    if depth > 8:
        return None
    if isinstance(t, mi.UnionType):
        options = [o for o in t.types if not isinstance(o, mi.NoneType)]
        decimal = [o for o in options if isinstance(o, mi.DecimalType)]
        return _sample((decimal or options)[0], bad, path, found, depth, text)
    if isinstance(t, mi.DecimalType) and not text:
        found.append(path)
        return bad
    if isinstance(t, mi.StrType) and text:
        found.append(path)
        return bad
    if isinstance(t, mi.StructType | mi.DataclassType | mi.TypedDictType):
        return {
            f.encode_name: _sample(
                f.type, bad, f"{path}.{f.encode_name}".lstrip("."), found, depth + 1, text
            )
            for f in t.fields
        }
    if isinstance(t, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        return [_sample(t.item_type, bad, f"{path}[0]", found, depth + 1, text)]
    if isinstance(t, mi.LiteralType):
        return t.values[0]
    if isinstance(t, mi.EnumType):
        return next(iter(t.cls)).value
    if isinstance(t, mi.IntType):
        return 1
    if isinstance(t, mi.DecimalType):
        return "1.00"
    if isinstance(t, mi.BoolType):
        return True
    if isinstance(t, mi.DateType):
        return "2030-01-01"
    if isinstance(t, mi.DateTimeType):
        return "2030-01-01T00:00:00Z"
    if isinstance(t, mi.DictType):
        return {}
    if isinstance(t, mi.StrType):
        return "x"
    return None


def decimal_bodies(
    app: Litestar, text: bool = False
) -> Iterator[tuple[Operation, Callable[[str], bytes], list[str]]]:
    """For each JSON route with a decimal (or with ``text``, a string) field: a body maker
    and the fields' paths."""
    for op in json_operations(app):
        kind = _data_type(app, op)
        if kind is None:
            from payhub_server.pages.routes import PaymentIn

            kind = PaymentIn if op.template.endswith("/payments") else None
        if kind is None:
            continue
        found: list[str] = []
        value = _sample(mi.type_info(kind), "\x00BAD\x00", "", found, text=text)
        if found:
            encoded = json.dumps(value)

            def make(bad: str, encoded: str = encoded) -> bytes:
                return encoded.replace('"\\u0000BAD\\u0000"', bad).encode()

            yield op, make, found


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_every_decimal_field_of_every_route_refuses_bad_numbers(
    client: Client, app: Litestar, key: dict[str, str]
) -> None:
    bodies = list(decimal_bodies(app))
    fields = {f"{op} {path}" for op, _, paths in bodies for path in paths}
    # amounts, prices, quantities, percentages and deposits are all reached
    for name in ("amount.value", "unitPrice", "quantity", "percent", "requiredDepositAmount"):
        assert any(f.endswith(name) or f".{name}" in f for f in fields), (name, sorted(fields))
    for op, make, paths in bodies:
        for bad in BAD_DECIMALS:
            for headers in (key, {}):
                response = send(client, op, make(bad), headers=headers)
                if op.route.startswith("/api") and not headers:
                    refused(response, {401})
                    continue
                problem = refused(response, {400})
                named = {e["field"] for e in problem.get("errors", [])}
                assert set(paths) <= named, (str(op), bad, paths, problem)


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_every_string_field_of_every_route_refuses_bidi_overrides_and_controls(
    client: Client, app: Litestar, key: dict[str, str]
) -> None:
    bodies = list(decimal_bodies(app, text=True))
    assert len(bodies) > 20
    for op, make, paths in bodies:
        for bad in ('"a\\u202eb"', '"a\\u0000b"', '"a\\u0007b"', '"a\\ufffeb"', '"a\\u2066b"'):
            problem = refused(send(client, op, make(bad), headers=key), {400})
            named = {e["field"] for e in problem.get("errors", [])}
            assert set(paths) <= named, (str(op), bad, paths, problem)


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("with_key", [True, False], ids=["key", "no-key"])
def test_integer_query_parameters_past_64_bits_are_400(
    client: Client, app: Litestar, key: dict[str, str], with_key: bool
) -> None:
    headers = key if with_key else {}
    checked = set()
    for op in _all(app):
        handler = _handler(app, op)
        for name, field in handler.parsed_fn_signature.parameters.items():
            kinds = {field.annotation, *get_args(field.annotation)}
            kwarg = field.kwarg_definition
            if int not in kinds or bool in kinds or name in op.params:
                continue
            if kwarg is not None and not hasattr(kwarg, "query"):
                continue
            wire = getattr(kwarg, "query", None) or name
            checked.add(wire)
            for value in BIG_INTS:
                response = send(client, op, headers=headers, params={wire: value})
                problem = check_query(op, response, with_key)
                # 2**63 happens to pass the Luhn check: the card guard refuses it first.
                if with_key and problem["type"] != "/problems/raw-card-data":
                    assert wire in {e["field"] for e in problem.get("errors", [])}, problem
    assert {"limit", "page", "pageSize", "days"} <= checked


def check_query(op: Operation, response: httpx.Response, with_key: bool) -> dict[str, Any]:
    if op.route.startswith("/api") and not with_key:
        problem = refused(response, {400, 401})
        assert problem["status"] == 401 or problem["type"] == "/problems/raw-card-data"
        return problem
    return refused(response, {400})


# --- the classes, one by one ------------------------------------------------------------------


def test_depth_is_counted_outside_strings_only() -> None:
    assert not too_deep(b'{"a": "' + b"[" * 100 + b'"}')
    assert not too_deep(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
    assert too_deep(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert not too_deep(b'["\\"' + b"[" * 100 + b'"]')


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_body_within_the_depth_limit_is_read(client: Client, key: dict[str, str]) -> None:
    body = {"externalReference": "deep", "displayName": "D"}
    nested: Any = "x"
    for _ in range(MAX_DEPTH - 2):
        nested = [nested]
    response = client.post(
        "/api/merchant-accounts", json={**body, "extra": nested}, headers=key
    )  # read, then refused only for the unknown field
    assert response.status_code == 400
    assert "extra" in response.text
    assert "nests" not in response.text


def test_the_problem_type_of_415_is_documented(client: Client) -> None:
    page = client.get("/problems/unsupported-media-type")
    assert page.status_code == 200


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_text_is_stored_nfc_and_real_scripts_pass(client: Client, key: dict[str, str]) -> None:
    name = "Zoe\u0308 \u0915\u094d\u200d\u0937 \u0645\u06cc\u200c\u062e"  # decomposed, ZWJ, ZWNJ
    response = client.post(
        "/api/merchant-accounts",
        json={"externalReference": "nfc", "displayName": name},
        headers=key,
    )
    assert response.status_code == 201, response.text
    assert (
        response.json()["displayName"]
        == "Zo\u00eb \u0915\u094d\u200d\u0937 \u0645\u06cc\u200c\u062e"
    )
    stored = client.get("/api/merchant-accounts/nfc", headers=key).json()
    assert stored["displayName"] == response.json()["displayName"]
