"""Short links: safe targets, codes, expiry, the creation window and day buckets. Pure.

Target rules (spec, short-link rule 1). A target is accepted only when a browser would
open it as an ``https://`` page on a real public host name, judged the way the browser
itself reads the address, so no other spelling of the same place gets through:

* the host is mapped with IDNA (UTS #46, as browsers do: full-width letters and dots,
  upper case, Unicode names) to its ASCII form before anything is decided about it;
* a host whose last label is a number (``127.1``, ``2130706433``, ``0x7f.0.0.1``,
  ``0177.0.0.1``, full-width digits) is an IPv4 address to a browser, and is refused, as is
  any IPv6 literal (``[::1]``, ``[::ffff:127.0.0.1]``);
* the host must end in a public suffix of the Public Suffix List (the snapshot bundled with
  ``tldextract``, never fetched) and be more than the suffix itself, which rules out
  single labels and internal names; ``localhost``, special-use and common internal suffixes
  and names that resolve to any IP written in them are refused with their own message;
* no user name or password, no port but 443, no spaces, control or invisible format
  characters, no backslash (browsers read it as ``/``, Python's parser does not), no
  percent-encoding in the host;
* not another shortener (``payhub.domain.shorteners``), not the service's own short-link
  domains, not a domain on the operator's abuse blocklist, nor a subdomain of any of those.

What is stored and redirected to is the normalised address: ``https://`` + the ASCII
host + the path (``/`` when empty), query and fragment with non-ASCII characters
percent-encoded as UTF-8, so the ``Location`` header is always plain ASCII.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Collection, Mapping
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from urllib.parse import SplitResult, urlsplit

import attrs
import idna
import tldextract

from payhub.domain.environments import Environment
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.shorteners import SHORTENER_DOMAINS

TARGET_FIELD = "targetUrl"
TARGET_MAX = 2048
PURPOSE_MAX = 40
LABEL_MAX = 120
CLIENT_REFERENCE_MAX = 100
REVOKE_REASON_MAX = 200
SEARCH_MAX = 200
EXPIRES_IN_DAYS_MAX = 3650
PAGE_SIZE_MAX = 200
PAGE_MAX = 1_000_000  # far past any real listing; keeps the row offset small
PAGE_SIZE_DEFAULT = 50
CLICK_DAYS_MAX = 365
CLICK_DAYS_DEFAULT = 30

MERCHANT_DAILY_LIMIT = 2_000
PROVIDER_DAILY_LIMIT = 50_000
CREATION_WINDOW = timedelta(hours=24)

CODE_LENGTH = 8
CODE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
CODE_RANDOM_BYTES = 32
_CODE = re.compile(rf"^[0-9A-Za-z]{{{CODE_LENGTH}}}$")

HOST_MAX = 253
LABEL_LEN_MAX = 63
_LDH_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_HEX_NUMBER = re.compile(r"^0x[0-9a-f]*$")
_SHORT_DOMAIN = re.compile(r"^(?P<host>[^:/\s]+)(?::(?P<port>[0-9]{1,5}))?$")

# Suffixes that never name a public host: RFC 6761/6762/8375/9476 special-use names and
# the internal suffixes companies use. Most are not in the PSL either; listing them gives a
# clearer refusal, and ``arpa`` (reverse DNS) is in the PSL but is no web page.
INTERNAL_SUFFIXES: frozenset[str] = frozenset(
    {
        "alt",
        "arpa",
        "corp",
        "example",
        "home",
        "internal",
        "intranet",
        "invalid",
        "lan",
        "local",
        "localdomain",
        "onion",
        "private",
        "test",
    }
)

# Public names that resolve to whatever IP address is written in them (127.0.0.1.nip.io)
# or always to the loopback address: a way to reach private addresses through DNS.
LOOPBACK_NAME_SERVICES: frozenset[str] = frozenset(
    {
        "lacolhost.com",
        "localtest.me",
        "lvh.me",
        "nip.io",
        "sslip.io",
        "traefik.me",
        "vcap.me",
        "xip.io",
    }
)

# Unicode categories refused anywhere in an address: controls, invisible format characters
# (zero-width joiners, bidirectional overrides) and every kind of space.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
# Characters browsers percent-encode in a path or query, besides every non-ASCII one.
_ENCODE_ASCII = frozenset('"<>`')


class LinkStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"

    @classmethod
    def parse(cls, value: str, field: str = "status") -> LinkStatus:
        for status in cls:
            if value.strip().lower() == status.value:
                return status
        raise ValidationError.for_field(field, "must be one of active, expired, revoked")


@attrs.define
class ShortLink:
    """A short link. ``merchant_id`` is ``None`` for a link a provider key made for itself."""

    id: str
    code: str
    provider_id: str
    environment: Environment
    target_url: str
    target_host: str
    created_at: datetime
    created_by: str
    merchant_id: str | None = None
    merchant_reference: str | None = None
    purpose: str | None = None
    label: str | None = None
    client_reference: str | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    revoke_reason: str | None = None

    def status(self, now: datetime) -> LinkStatus:
        return link_status(self.revoked_at, self.expires_at, now)


@attrs.frozen
class Resolved:
    """What a redirect needs to know about a link: one indexed read."""

    id: str
    target_url: str
    expires_at: datetime | None
    revoked_at: datetime | None


@attrs.frozen
class ClickTotal:
    count: int = 0
    last_at: datetime | None = None


@attrs.frozen
class LinkQuery:
    """Which of a provider's links a list shows; ``merchant_id`` narrows it to one merchant."""

    provider_id: str
    now: datetime
    merchant_id: str | None = None
    status: LinkStatus | None = None
    purpose: str | None = None
    search: str | None = None


@attrs.frozen
class BlockedDomain:
    domain: str
    reason: str | None
    created_at: datetime


@attrs.frozen
class UsageRecord:
    """Short-link API requests attributed to one merchant on one UTC day."""

    provider_id: str
    merchant_id: str
    merchant_reference: str
    day: date
    requests: int


@attrs.frozen
class Target:
    """An accepted target: the normalised address and its ASCII host."""

    url: str
    host: str

    def domains(self) -> list[str]:
        """The host and every parent domain: what a domain list is matched against."""
        return parent_domains(self.host)


def link_status(
    revoked_at: datetime | None, expires_at: datetime | None, now: datetime
) -> LinkStatus:
    """Revoked wins over expired: a revoked link stays revoked whatever its expiry."""
    if revoked_at is not None:
        return LinkStatus.REVOKED
    if expires_at is not None and expires_at <= now:
        return LinkStatus.EXPIRED
    return LinkStatus.ACTIVE


# --- targets -------------------------------------------------------------------------------


def _refuse(message: str) -> ValidationError:
    return ValidationError.for_field(TARGET_FIELD, message)


@functools.cache
def _suffixes() -> tldextract.TLDExtract:
    # No URLs and no cache directory: the PSL snapshot bundled in the package, never fetched.
    # Private suffixes (github.io, blogspot.com) are off: a page there is a real public host.
    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=False
    )


def parent_domains(host: str) -> list[str]:
    """``a.b.example.com`` -> ``[a.b.example.com, b.example.com, example.com, com]``."""
    labels = host.split(".")
    return [".".join(labels[i:]) for i in range(len(labels))]


def in_domains(host: str, domains: Collection[str]) -> str | None:
    """The entry of ``domains`` that is ``host`` or one of its parents, if any."""
    for candidate in parent_domains(host):
        if candidate in domains:
            return candidate
    return None


def _check_characters(text: str) -> None:
    for ch in text:
        if unicodedata.category(ch) in _REFUSED_CATEGORIES:
            raise _refuse("must not contain spaces, control characters or invisible characters")
    if "\\" in text:
        raise _refuse("must not contain backslashes")


def _check_scheme(text: str) -> None:
    scheme, sep, rest = text.partition(":")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        raise _refuse("must be a full https:// address")
    if scheme.lower() == "http":
        raise _refuse("must use https:// (http:// addresses are not accepted)")
    if scheme.lower() != "https":
        raise _refuse(f"must be an https:// address, not {scheme.lower()}:")
    if not rest.startswith("//"):
        raise _refuse("must be a full https:// address")


def _split_authority(parts: SplitResult) -> str:
    """The host text of the address, with the port checked and dropped."""
    netloc = parts.netloc
    if not netloc:
        raise _refuse("must name a host")
    if "@" in netloc:
        raise _refuse("must not carry a user name or password")
    if netloc.startswith("["):
        raise _refuse("must not be an IP address; use the site's host name")
    host, colon, port = netloc.partition(":")
    if colon and (not port.isascii() or not port.isdigit() or int(port) != 443):
        raise _refuse("must not name a port (only the standard https port 443 is allowed)")
    if not host:
        raise _refuse("must name a host")
    if "%" in host:
        raise _refuse("must not percent-encode the host name")
    return host


def ascii_host(host: str) -> str:
    """The host as a browser resolves it: IDNA-mapped, lower case, without a final dot.

    Raises ``ValueError`` with the reason when it is no valid host name.
    """
    if not host.isascii() or any(label.startswith("xn--") for label in host.lower().split(".")):
        try:
            host = idna.encode(host, uts46=True, std3_rules=True, transitional=False).decode()
        except (idna.IDNAError, UnicodeError) as e:
            raise ValueError(f"is not a valid international host name ({e})") from None
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    if not host:
        raise ValueError("must name a host")
    if len(host) > HOST_MAX:
        raise ValueError(f"has a host name over {HOST_MAX} characters")
    for label in host.split("."):
        if not label:
            raise ValueError("has an empty label in its host name (two dots in a row)")
        if len(label) > LABEL_LEN_MAX:
            raise ValueError(f"has a host name label over {LABEL_LEN_MAX} characters")
        if not _LDH_LABEL.match(label):
            raise ValueError(
                "has a host name with characters other than letters, digits and inner hyphens"
            )
    return host


def looks_like_ipv4(host: str) -> bool:
    """The WHATWG URL rule: a host whose last label is a number is parsed as IPv4 (in
    decimal, octal with a leading 0, or hex with 0x), however many labels it has."""
    last = host.rsplit(".", 1)[-1]
    return last.isdigit() or bool(_HEX_NUMBER.match(last))


def _check_host(host: str) -> None:
    if looks_like_ipv4(host):
        raise _refuse("must not be an IP address; use the site's host name")
    if host == "localhost" or host.endswith(".localhost"):
        raise _refuse("must not point to localhost")
    if "." not in host:
        raise _refuse(
            f"must name a full public host name; '{host}' is a single name, used only"
            " inside private networks"
        )
    suffix = in_domains(host, INTERNAL_SUFFIXES | {"home.arpa"})
    if suffix is not None:
        raise _refuse(f"must be a public host name; .{suffix} names are internal")
    service = in_domains(host, LOOPBACK_NAME_SERVICES)
    if service is not None:
        raise _refuse(f"must be a public host name; {service} names resolve to private addresses")
    parts = _suffixes()(host)
    if not parts.suffix:
        raise _refuse(
            f"must be a public host name; '{host}' does not end in a known public domain suffix"
        )
    if not parts.domain:
        raise _refuse(f"must name a site; '{host}' is only a public domain suffix")


def _encode_rest(text: str) -> str:
    if text.isascii() and not any(ch in _ENCODE_ASCII for ch in text):
        return text
    out = []
    for ch in text:
        if ch.isascii() and ch not in _ENCODE_ASCII:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out)


def parse_target(url: str, own_domains: Collection[str] = ()) -> Target:
    """Check a target's form, host and listed services (everything but the blocklist).

    ``own_domains`` are the service's short-link host names (any environment, no port).
    """
    if not url:
        raise _refuse("is required")
    if len(url) > TARGET_MAX:
        raise _refuse(f"must be at most {TARGET_MAX} characters")
    _check_characters(url)
    _check_scheme(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        raise _refuse("is not a valid address") from None
    try:
        host = ascii_host(_split_authority(parts))
    except ValueError as e:
        raise _refuse(str(e)) from None
    _check_host(host)
    shortener = in_domains(host, SHORTENER_DOMAINS)
    if shortener is not None:
        raise _refuse(
            f"must not be another link-shortening service ({shortener}); use the final address"
        )
    own = in_domains(host, own_domains)
    if own is not None:
        raise _refuse(f"must not be a short link of this service ({own})")
    normalised = f"https://{host}{_encode_rest(parts.path) or '/'}"
    if parts.query:
        normalised += "?" + _encode_rest(parts.query)
    if parts.fragment:
        normalised += "#" + _encode_rest(parts.fragment)
    if len(normalised) > TARGET_MAX:
        raise _refuse(f"must be at most {TARGET_MAX} characters once encoded")
    return Target(normalised, host)


def refuse_blocked(target: Target, blocked_domains: Collection[str]) -> Target:
    """Refuse a target on (or under) a domain of the operator's abuse blocklist."""
    blocked = in_domains(target.host, blocked_domains)
    if blocked is not None:
        raise _refuse(f"points to {blocked}, a domain blocked for abuse")
    return target


def check_target(
    url: str, own_domains: Collection[str] = (), blocked_domains: Collection[str] = ()
) -> Target:
    """Every target rule at once: the form, the host, the lists and the blocklist."""
    return refuse_blocked(parse_target(url, own_domains), blocked_domains)


def clean_domain(text: str, field: str = "domain") -> str:
    """A domain for the blocklist: a host name in any spelling, stored in ASCII form."""
    value = text.strip().lower()
    try:
        host = ascii_host(value)
    except ValueError as e:
        raise ValidationError.for_field(field, str(e)) from None
    if looks_like_ipv4(host):
        raise ValidationError.for_field(field, "must be a domain name, not an IP address")
    return host


def clean_short_domain(text: str, field: str = "domain") -> str:
    """The host (and, for a local set-up, port) a short-link environment is served on."""
    value = text.strip().lower()
    for prefix in ("https://", "http://"):
        value = value.removeprefix(prefix)
    value = value.rstrip("/")
    match = _SHORT_DOMAIN.match(value)
    if match is None:
        raise ValidationError.for_field(
            field, "must be a host name such as go.example.com, optionally with :port"
        )
    try:
        host = ascii_host(match["host"])
    except ValueError as e:
        raise ValidationError.for_field(field, str(e)) from None
    port = match["port"]
    if port is not None and not 1 <= int(port) <= 65535:
        raise ValidationError.for_field(field, "has a port outside 1 to 65535")
    return f"{host}:{int(port)}" if port and int(port) != 443 else host


def host_of(domain: str) -> str:
    """``go.example.com:8443`` -> ``go.example.com``."""
    return domain.rsplit(":", 1)[0] if ":" in domain else domain


# --- codes ---------------------------------------------------------------------------------


def new_code(raw: bytes) -> str:
    """An 8-character base-62 code from random bytes (passed in to keep this pure).

    Bytes are taken by rejection sampling (only values below 248 = 4 x 62), so every
    character is equally likely: about 47.6 bits per code.
    """
    limit = 256 - 256 % len(CODE_ALPHABET)
    out = [CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in raw if b < limit][:CODE_LENGTH]
    if len(out) < CODE_LENGTH:
        raise ValueError("not enough random bytes for a code")
    return "".join(out)


def looks_like_code(text: str) -> bool:
    return bool(_CODE.match(text))


def short_url(domain: str, code: str) -> str:
    return f"https://{domain}/{code}"


# --- the fields of a new link --------------------------------------------------------------


@attrs.frozen
class LinkFields:
    purpose: str | None
    label: str | None
    client_reference: str | None
    expires_at: datetime | None


def _text(value: str | None, field: str, limit: int, errors: list[FieldError]) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if len(value) > limit:
        errors.append(FieldError(field, f"must be at most {limit} characters"))
    elif any(unicodedata.category(ch) in {"Cc", "Cf"} for ch in value):
        errors.append(FieldError(field, "must not contain control characters"))
    return value


def clean_link_fields(
    now: datetime,
    purpose: str | None = None,
    label: str | None = None,
    client_reference: str | None = None,
    expires_in_days: int | None = None,
    expires_at: datetime | None = None,
) -> LinkFields:
    """The optional fields of a new link, every fault named in one error."""
    errors: list[FieldError] = []
    purpose = _text(purpose, "purpose", PURPOSE_MAX, errors)
    label = _text(label, "label", LABEL_MAX, errors)
    client_reference = _text(client_reference, "clientReference", CLIENT_REFERENCE_MAX, errors)
    expiry: datetime | None = None
    latest = now + timedelta(days=EXPIRES_IN_DAYS_MAX)
    if expires_in_days is not None and expires_at is not None:
        message = "give expiresInDays or expiresAtUtc, not both"
        errors += [FieldError("expiresInDays", message), FieldError("expiresAtUtc", message)]
    elif expires_in_days is not None:
        if not 1 <= expires_in_days <= EXPIRES_IN_DAYS_MAX:
            errors.append(
                FieldError("expiresInDays", f"must be between 1 and {EXPIRES_IN_DAYS_MAX}")
            )
        else:
            expiry = now + timedelta(days=expires_in_days)
    elif expires_at is not None:
        if expires_at.tzinfo is None:
            errors.append(FieldError("expiresAtUtc", "must carry a time zone, e.g. a final Z"))
        elif expires_at <= now:
            errors.append(FieldError("expiresAtUtc", "must be in the future"))
        elif expires_at > latest:
            errors.append(
                FieldError("expiresAtUtc", f"must be at most {EXPIRES_IN_DAYS_MAX} days ahead")
            )
        else:
            expiry = expires_at.astimezone(UTC)
    if errors:
        raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
    return LinkFields(purpose, label, client_reference, expiry)


def clean_revoke_reason(reason: str | None) -> str | None:
    errors: list[FieldError] = []
    cleaned = _text(reason, "reason", REVOKE_REASON_MAX, errors)
    if errors:
        raise ValidationError(f"reason: {errors[0].message}", errors)
    return cleaned


def clean_search(search: str | None) -> str | None:
    errors: list[FieldError] = []
    cleaned = _text(search, "search", SEARCH_MAX, errors)
    if errors:
        raise ValidationError(f"search: {errors[0].message}", errors)
    return cleaned


def check_page(page: int, page_size: int) -> None:
    errors: list[FieldError] = []
    if not 1 <= page <= PAGE_MAX:
        errors.append(FieldError("page", f"must be between 1 and {PAGE_MAX}"))
    if not 1 <= page_size <= PAGE_SIZE_MAX:
        errors.append(FieldError("pageSize", f"must be between 1 and {PAGE_SIZE_MAX}"))
    if errors:
        raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)


def check_click_days(days: int) -> int:
    if not 1 <= days <= CLICK_DAYS_MAX:
        raise ValidationError.for_field("days", f"must be between 1 and {CLICK_DAYS_MAX}")
    return days


# --- the creation window -------------------------------------------------------------------


def window_start(now: datetime) -> datetime:
    """Creations after this moment count against the rolling 24-hour limits."""
    return now - CREATION_WINDOW


def seconds_until_slot(
    count: int, limit: int, kth_oldest: datetime | None, now: datetime
) -> int | None:
    """``None`` while a creation is allowed; otherwise the whole seconds until one is.

    ``count`` creations lie in the window; a slot frees when the oldest
    ``count - limit + 1`` of them have left it, i.e. when the ``kth_oldest`` (that many-th,
    counted from the oldest) is 24 hours old.
    """
    if count < limit:
        return None
    if kth_oldest is None:  # the rows left the window between the count and the read
        return 1
    return max(1, math.ceil((kth_oldest + CREATION_WINDOW - now).total_seconds()))


# --- clicks by UTC day ---------------------------------------------------------------------


def utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def day_key(day: date) -> str:
    """How a day is stored: ``YYYY-MM-DD``, which sorts and compares as text."""
    return day.isoformat()


def last_days(now: datetime, days: int) -> list[date]:
    """The last ``days`` UTC days, oldest first, ending with today."""
    today = utc_day(now)
    return [today - timedelta(days=n) for n in range(days - 1, -1, -1)]


def daily_series(counts: Mapping[date, int], now: datetime, days: int) -> list[tuple[date, int]]:
    """One entry per day of the last ``days``, oldest first; days without opens are 0."""
    return [(day, counts.get(day, 0)) for day in last_days(now, days)]
