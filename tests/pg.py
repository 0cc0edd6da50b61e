"""PostgreSQL for tests: where it is, whether it answers, and a throwaway schema per test.

``PAYHUB_TEST_POSTGRES_URL`` names the server (default: a local one with trust auth).
When it does not answer, tests skip with the reason, except in CI (``CI=true``), where
they fail: CI must never pass by skipping the PostgreSQL half silently.

    base = postgres_url_or_skip()
    with isolated_schema(base) as url:      # postgresql://…?schema=t_…, dropped after
        store = open_store(url)
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
CONNECT_TIMEOUT_S = 3


def postgres_url() -> str:
    return os.environ.get("PAYHUB_TEST_POSTGRES_URL") or DEFAULT_URL


@functools.cache
def unreachable_reason(url: str) -> str | None:
    """Why the server at ``url`` cannot be used, or ``None`` when it answers."""
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as e:
        return str(e).strip() or type(e).__name__
    return None


def postgres_url_or_skip() -> str:
    """The base URL of a reachable server; otherwise skip (or fail when ``CI=true``)."""
    url = postgres_url()
    reason = unreachable_reason(url)
    if reason is not None:
        message = f"PostgreSQL not reachable at {url}: {reason}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return url


def with_schema(url: str, schema: str) -> str:
    """``url`` with its ``schema`` query parameter set (others kept)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "schema"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("schema", schema)])))


def _admin(base: str, statement: sql.Composable) -> None:
    with psycopg.connect(base, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
        conn.execute(statement)


def isolated_schema_url(base: str, *, create: bool = True) -> tuple[str, Callable[[], None]]:
    """A URL for a new random schema, and the function that drops it (CASCADE).

    With ``create=False`` the schema is only named, so the store must create it."""
    name = f"t_{secrets.token_hex(6)}"
    ident = sql.Identifier(name)
    if create:
        _admin(base, sql.SQL("CREATE SCHEMA {}").format(ident))

    def cleanup() -> None:
        _admin(base, sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(ident))

    return with_schema(base, name), cleanup


@contextmanager
def isolated_schema(base: str, *, create: bool = True) -> Iterator[str]:
    url, cleanup = isolated_schema_url(base, create=create)
    try:
        yield url
    finally:
        cleanup()
