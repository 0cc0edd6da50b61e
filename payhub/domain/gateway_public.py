"""Public client configuration: the non-secret values a gateway's browser SDK needs.

A pay page that collects a card in Stripe Elements needs the merchant's publishable key, one
in Square's Web Payments SDK its application and location ids, and so on. These values are
made to be published (they ship inside every checkout page), so payhub keeps them unsealed,
apart from ``apiSecret`` and the adapter's own fields, and the pages read them server-side.

They arrive as ``additionalFields`` of ``PUT M/credentials/{gateway}`` (each is listed in its
catalog row's ``credential_fields``; the specs are its row's ``public_fields``, kept in the
gateway's folder, ``payhub/adapters/gateways/<gateway>/catalog.py``). A value is checked here
for its shape and, where the vendor's format says so, for the sandbox/live prefix, so a
sandbox merchant can never put a live publishable key on a test page (nor the reverse). A
field that is both public and used by the adapter (Authorize.Net's API login id, Square's
location id) is also kept in the sealed fields, since the adapter reads it from there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

from payhub.domain.errors import FieldError


@attrs.frozen
class PublicField:
    name: str
    pattern: re.Pattern[str]
    # None: the vendor's format has no mode prefix. A tuple: any of these prefixes.
    sandbox_prefix: str | tuple[str, ...] | None = None
    live_prefix: str | tuple[str, ...] | None = None
    shape: str = ""  # what the payer's merchant reads when the value is malformed


def pattern(expr: str) -> re.Pattern[str]:
    return re.compile(expr)


def public_field_names(specs: tuple[PublicField, ...]) -> tuple[str, ...]:
    return tuple(f.name for f in specs)


def split_fields(
    public_fields: tuple[PublicField, ...],
    adapter_reads: frozenset[str],
    given: Mapping[str, str],
    sandbox: bool,
) -> tuple[dict[str, str], dict[str, str], list[FieldError]]:
    """``(sealed, public, errors)``: which given fields are sealed, which are kept public.

    ``public_fields`` and ``adapter_reads`` come from the gateway's catalog row. Public
    values are trimmed and checked; an adapter-read public field goes to both sides.
    """
    specs = {f.name: f for f in public_fields}
    sealed: dict[str, str] = {}
    public: dict[str, str] = {}
    errors: list[FieldError] = []
    for name, value in given.items():
        spec = specs.get(name)
        if spec is None:
            sealed[name] = value
            continue
        clean = value.strip()
        problem = check(spec, clean, sandbox)
        if problem:
            errors.append(FieldError(f"additionalFields.{name}", problem))
            continue
        public[name] = clean
        if name in adapter_reads:
            sealed[name] = value
    return sealed, public, errors


def check(spec: PublicField, value: str, sandbox: bool) -> str | None:
    """Why ``value`` cannot be this public field in this mode, or None."""
    if not spec.pattern.match(value):
        return f"must be {spec.shape}"
    if spec.sandbox_prefix and spec.live_prefix:
        wanted = spec.sandbox_prefix if sandbox else spec.live_prefix
        mode = "sandbox" if sandbox else "production"
        if not value.startswith(wanted):
            return (
                f"must start with {_either(wanted)} for {mode} credentials;"
                " sandbox and production never mix"
            )
        # A live prefix may be the start of a sandbox one (Checkout.com: pk_ and pk_sbox_).
        if not sandbox and value.startswith(spec.sandbox_prefix):
            return (
                f"must not start with {_either(spec.sandbox_prefix)} for {mode} credentials;"
                " sandbox and production never mix"
            )
    return None


def _either(prefixes: str | tuple[str, ...]) -> str:
    return prefixes if isinstance(prefixes, str) else " or ".join(prefixes)
