"""API keys: a recognisable prefix per kind and world, exact parsing, digests compared safely."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub import Environment
from payhub.domain.keys import (
    KEY_ID_BYTES,
    KEY_SECRET_BYTES,
    KeyKind,
    compose_key,
    digests_match,
    display_hint,
    key_digest,
    key_prefix,
    parse_key,
)

kinds = st.sampled_from(list(KeyKind))
environments = st.sampled_from(list(Environment))
raw_ids = st.binary(min_size=KEY_ID_BYTES, max_size=KEY_ID_BYTES + 8)
raw_secrets = st.binary(min_size=KEY_SECRET_BYTES, max_size=KEY_SECRET_BYTES + 8)
hex_digests = st.text(alphabet="0123456789abcdef", min_size=0, max_size=64)


@given(kinds, environments, raw_ids, raw_secrets)
def test_compose_then_parse_gives_the_same_key(
    kind: KeyKind, environment: Environment, raw_id: bytes, raw_secret: bytes
) -> None:
    composed = compose_key(kind, environment, raw_id, raw_secret)
    parsed = parse_key(composed.text)
    assert parsed == composed
    assert parsed is not None
    assert parsed.text.startswith(key_prefix(kind, environment))
    assert parse_key(f"  {composed.text}\n") == composed  # pasted with whitespace


@given(kinds, environments, raw_ids, raw_secrets)
def test_the_hint_shows_the_public_part_only(
    kind: KeyKind, environment: Environment, raw_id: bytes, raw_secret: bytes
) -> None:
    composed = compose_key(kind, environment, raw_id, raw_secret)
    secret_part = composed.text.rsplit("_", 1)[1]
    hint = display_hint(composed)
    assert hint.startswith(key_prefix(kind, environment) + composed.key_id)
    assert secret_part not in hint


def test_every_kind_and_world_has_its_own_recognisable_prefix() -> None:
    prefixes = {(k, e): key_prefix(k, e) for k in KeyKind for e in Environment}
    assert len(set(prefixes.values())) == len(prefixes)
    for (kind, environment), prefix in prefixes.items():
        assert prefix.startswith(kind.value + "_")
        assert ("sandbox" in prefix) == (environment is Environment.SANDBOX)
        assert ("live" in prefix) == (environment is Environment.PRODUCTION)
    assert key_prefix(KeyKind.PROVIDER, Environment.SANDBOX) == "phk_sandbox_"
    assert key_prefix(KeyKind.MERCHANT, Environment.PRODUCTION) == "phm_live_"


def test_compose_refuses_too_little_randomness() -> None:
    with pytest.raises(ValueError, match="randomness"):
        compose_key(KeyKind.PROVIDER, Environment.SANDBOX, b"x" * 9, b"y" * 32)
    with pytest.raises(ValueError, match="randomness"):
        compose_key(KeyKind.PROVIDER, Environment.SANDBOX, b"x" * 10, b"y" * 31)


def _valid() -> str:
    return compose_key(KeyKind.PROVIDER, Environment.SANDBOX, b"\x01" * 10, b"\x02" * 32).text


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "   ",
        "garbage",
        "phk_sandbox",
        "phk_sandbox_abc_def",
        "Bearer abc",
        _valid().replace("phk_", "phx_", 1),  # unknown kind
        _valid().replace("_sandbox_", "_test_", 1),  # unknown world
        _valid()[:-1],  # secret one character short
        _valid() + "a",  # secret one character long
        _valid() + "_extra",  # a fifth part
        _valid().replace("_", "-"),
    ],
)
def test_parse_rejects_garbage(garbage: str) -> None:
    assert parse_key(garbage) is None


@given(st.text(max_size=120))
def test_parse_accepts_only_well_formed_keys(text: str) -> None:
    parsed = parse_key(text)
    if parsed is not None:
        assert parsed.text == text.strip()
        assert parsed.text.startswith(key_prefix(parsed.kind, parsed.environment))
        assert len(parsed.key_id) == 16


@given(hex_digests, hex_digests)
def test_digests_match_is_plain_equality(expected: str, presented: str) -> None:
    assert digests_match(expected, presented) == (expected == presented)
    assert digests_match(expected, expected)


def test_digest_depends_on_the_key_and_the_pepper() -> None:
    key = _valid()
    digest = key_digest(b"pepper-1", key)
    assert digest == key_digest(b"pepper-1", key)
    assert len(digest) == 64
    assert key not in digest
    assert not digests_match(digest, key_digest(b"pepper-2", key))
    assert not digests_match(digest, key_digest(b"pepper-1", key + "x"))
    assert not digests_match(digest, digest[:-1])  # a prefix is not a match
