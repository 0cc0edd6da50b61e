"""The log redactor: secret-named fields and secret-looking values never reach a log line."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub import Environment
from payhub.domain.keys import KeyKind, compose_key
from payhub.logging import REDACTED, redact

provider_keys = st.builds(
    lambda kind, env, raw_id, raw_secret: compose_key(kind, env, raw_id, raw_secret).text,
    st.sampled_from(list(KeyKind)),
    st.sampled_from(list(Environment)),
    st.binary(min_size=10, max_size=10),
    st.binary(min_size=32, max_size=32),
)


def run(**event: Any) -> dict[str, Any]:
    return dict(redact(None, "info", dict(event)))


@pytest.mark.parametrize(
    "name",
    [
        "apiSecret",
        "api_secret",
        "password",
        "passwd",
        "token",
        "paymentMethodToken",
        "api_key",
        "apiKey",
        "x-api-key",
        "Authorization",
        "cookie",
        "credentials",
        "cvc",
        "cvv",
        "pan",
    ],
)
def test_secret_named_fields_are_replaced(name: str) -> None:
    assert run(event="x", **{name: "hunter2"})[name] == REDACTED
    assert run(event="x", outer={name: "hunter2"})["outer"] == {name: REDACTED}


def test_ordinary_fields_pass_unchanged() -> None:
    event = {
        "event": "request",
        "method": "PUT",
        "path": "/api/merchant-accounts/shop-1/credentials/stripe",
        "status": 200,
        "duration_ms": 1.5,
        "request_id": "req_0123456789abcdef",
        "amount": "10.50",
    }
    assert run(**event) == event


@given(provider_keys, st.text(max_size=20), st.text(max_size=20))
def test_key_looking_values_are_masked_in_any_field(key: str, before: str, after: str) -> None:
    out = run(
        event=f"auth with {key}",
        path=f"/api/merchant-accounts/{key}",
        note=f"{before} {key} {after}",
        nested={"list": [key, {"deeper": key}], "tuple": (key,)},
    )
    assert key not in repr(out)
    assert REDACTED in out["path"]
    assert REDACTED in out["event"]


@pytest.mark.parametrize(
    "value",
    [
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
        "bearer abc.def-ghi",
        "4242424242424242",
        "4242 4242 4242 4242",
        "4242-4242-4242-4242",
        "378282246310005",
    ],
)
def test_bearer_tokens_and_card_like_numbers_are_masked(value: str) -> None:
    out = run(event="x", detail=f"got {value} from caller")
    assert value not in out["detail"]
    assert REDACTED in out["detail"]


def test_short_numbers_are_not_card_numbers() -> None:
    assert run(event="x", detail="order 12345 of 2025")["detail"] == "order 12345 of 2025"


def test_the_event_name_itself_is_kept_even_if_it_sounds_secret() -> None:
    assert run(event="token refreshed")["event"] == "token refreshed"
