"""Public client configuration: the non-secret values a gateway's browser SDK needs.

A pay page that collects a card in Stripe Elements needs the merchant's publishable key, one
in Square's Web Payments SDK its application and location ids, and so on. These values are
made to be published (they ship inside every checkout page), so payhub keeps them unsealed,
apart from ``apiSecret`` and the adapter's own fields, and the pages read them server-side.

They arrive as ``additionalFields`` of ``PUT M/credentials/{gateway}`` (each is listed in its
catalog row's ``credential_fields``). A value is checked here for its shape and, where the
vendor's format says so, for the sandbox/live prefix, so a sandbox merchant can never put a
live publishable key on a test page (nor the reverse). A field that is both public and used by
the adapter (Authorize.Net's API login id, Square's location id) is also kept in the sealed
fields as before, since the adapter reads it from there.
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


def _p(expr: str) -> re.Pattern[str]:
    return re.compile(expr)


_SLUG = _p(r"^[A-Za-z0-9_-]{4,255}$")

PUBLIC_FIELDS: dict[str, tuple[PublicField, ...]] = {
    # https://docs.stripe.com/keys: publishable keys are pk_test_… / pk_live_….
    "stripe": (
        PublicField(
            "publishableKey", _p(r"^pk_(test|live)_[A-Za-z0-9]{8,247}$"), "pk_test_", "pk_live_",
            "a Stripe publishable key (pk_test_… or pk_live_…)",
        ),
    ),
    # https://developer.squareup.com/reference/sdks/web/payments: sandbox application ids are
    # sandbox-sq0idb-…, production ones sq0idp-… (the SDK refuses anything else).
    "square": (
        PublicField(
            "applicationId", _p(r"^(sandbox-sq0idb|sq0idp)-[A-Za-z0-9_-]{8,200}$"),
            "sandbox-sq0idb-", "sq0idp-", "a Square application id (sandbox-sq0idb-… or sq0idp-…)",
        ),
        PublicField("locationId", _p(r"^[A-Za-z0-9]{4,64}$"), shape="a Square location id"),
    ),
    # https://docs.nmi.com/docs/quick-start-tutorial: a public tokenization key (Settings >
    # Security Keys), e.g. 5mN8N7-jhr55W-N22pxX-uAW2s9; no mode prefix.
    "nmi": (
        PublicField(
            "tokenizationKey", _p(r"^[A-Za-z0-9]{4,12}(-[A-Za-z0-9]{4,12}){2,7}$"),
            shape="an NMI Collect.js tokenization key (groups of letters and digits with -)",
        ),
    ),
    # https://developer.authorize.net/api/reference/features/acceptjs.html: the API login id
    # and the public client key (Account > Security Settings > Manage Public Client Key).
    "authorize-net": (
        PublicField(
            "apiLoginId", _p(r"^[A-Za-z0-9]{4,25}$"), shape="an Authorize.Net API login id"
        ),
        PublicField(
            "clientKey", _p(r"^[A-Za-z0-9]{16,128}$"), shape="an Authorize.Net public client key"
        ),
    ),
    # https://developer.paypal.com/braintree/docs/guides/authorization/tokenization-key:
    # sandbox_<8>_<16> or production_<8>_<16>.
    "braintree": (
        PublicField(
            "tokenizationKey", _p(r"^(sandbox|production)_[a-z0-9]{6,12}_[a-z0-9]{12,20}$"),
            "sandbox_", "production_",
            "a Braintree tokenization key (sandbox_…_… or production_…_…)",
        ),
    ),
    # https://www.checkout.com/docs/developer-resources/api/api-keys: Frames takes the public
    # key; sandbox keys are pk_sbox_… (pk_test_… on legacy accounts, a UUID), live ones pk_….
    "checkout-com": (
        PublicField(
            "publicKey", _p(r"^pk_(sbox_|test_)?[A-Za-z0-9-]{20,80}$"),
            ("pk_sbox_", "pk_test_"), "pk_",
            "a Checkout.com public key (pk_sbox_… or pk_…)",
        ),
    ),
    # https://docs.clover.com/docs/using-the-clover-hosted-iframe: new Clover(apiAccessKey,
    # {merchantId}); the Ecommerce public key (PAKMS apiAccessKey) and the 13-character merchant
    # id. Neither has a mode prefix: a sandbox key works only with the sandbox SDK's hosts.
    "clover": (
        PublicField(
            "apiAccessKey", _p(r"^[A-Za-z0-9]{16,64}$"),
            shape="a Clover Ecommerce public key (PAKMS apiAccessKey, letters and digits)",
        ),
        PublicField(
            "merchantId", _p(r"^[A-Za-z0-9]{13}$"), shape="a Clover merchant id (13 characters)"
        ),
    ),
    # https://help.usaepay.info/developer/rest-api/more/public-api-key/: Pay.js takes the public
    # API key (GET /api/v2/publickey), e.g. _P120LOb42a1SF4nN54z1Hp0256K7bl3ki0x8iuJP9; no mode
    # prefix: a sandbox key works only with sandbox.usaepay.com.
    "usaepay": (
        PublicField(
            "publicKey", _p(r"^_[A-Za-z0-9]{20,64}$"),
            shape="a USAePay public API key (_ followed by letters and digits)",
        ),
    ),
}  # fmt: skip

# Public fields the adapter also reads from the sealed credentials (kept in both places).
ADAPTER_READS: dict[str, frozenset[str]] = {
    "square": frozenset({"locationId"}),
    "authorize-net": frozenset({"apiLoginId"}),
}


def public_field_names(gateway: str) -> tuple[str, ...]:
    return tuple(f.name for f in PUBLIC_FIELDS.get(gateway, ()))


def split_fields(
    gateway: str, given: Mapping[str, str], sandbox: bool
) -> tuple[dict[str, str], dict[str, str], list[FieldError]]:
    """``(sealed, public, errors)``: which given fields are sealed, which are kept public.

    Public values are trimmed and checked; an adapter-read public field goes to both sides.
    """
    specs = {f.name: f for f in PUBLIC_FIELDS.get(gateway, ())}
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
        if name in ADAPTER_READS.get(gateway, frozenset()):
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
