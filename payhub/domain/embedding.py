"""Embedding the pay page: the merchant's allowed websites and the HTML snippets (pure).

Allowed websites (spec: Invoices endpoints, Limits): up to 10 per merchant, each an
``https://`` origin: a host name and optionally a port, no path, query, fragment, user
info or wildcard. They are kept normalised (``https://shop.example`` in lower case, the
default port dropped) and are exactly what goes into ``frame-ancestors`` and into the
``postMessage`` target of the embed page.

The embed page posts ``{source: MESSAGE_SOURCE, type, invoiceNumber, status, ...}``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from payhub.domain.errors import ValidationError

ORIGINS_MAX = 10
ORIGIN_INPUT_MAX = 300
MESSAGE_SOURCE = "payhub"
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_IPV4 = re.compile(r"^\d+(\.\d+){3}$")


def clean_origin(value: str, field: str = "origin") -> str:
    """One allowed website as ``https://host[:port]``, or a 400 saying what is wrong."""
    text = value.strip()
    if not text or len(text) > ORIGIN_INPUT_MAX:
        raise ValidationError.for_field(field, f"must be 1 to {ORIGIN_INPUT_MAX} characters")
    if "*" in text:
        raise ValidationError.for_field(field, f"'{text}': wildcards are not allowed")
    if any(c.isspace() for c in text):
        raise ValidationError.for_field(field, f"'{text}' must not contain spaces")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValidationError.for_field(field, f"'{text}' is not a web address") from None
    if parts.scheme.lower() != "https":
        raise ValidationError.for_field(field, f"'{text}' must start with https://")
    if parts.username is not None or parts.password is not None:
        raise ValidationError.for_field(field, f"'{text}' must not contain user information")
    if parts.path not in ("", "/") or parts.query or parts.fragment or text.endswith("?"):
        raise ValidationError.for_field(
            field, f"'{text}' must be a site only (https://host), without a path or query"
        )
    host = (parts.hostname or "").rstrip(".")
    try:
        host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise ValidationError.for_field(field, f"'{text}' has an invalid host name") from None
    labels = host.split(".")
    if not host or _IPV4.match(host) or ":" in host or not all(_LABEL.match(x) for x in labels):
        raise ValidationError.for_field(field, f"'{text}' must name a host, not an IP address")
    if len(labels) < 2 and host != "localhost":
        raise ValidationError.for_field(field, f"'{text}' must be a full host name")
    return f"https://{host}" + (f":{port}" if port not in (None, 443) else "")


def change_origins(
    current: Sequence[str],
    add: Sequence[str] = (),
    remove: Sequence[str] = (),
    clear: bool = False,
) -> tuple[str, ...]:
    """The new list: cleared first if asked, then removals, then additions (kept in order,
    without duplicates); more than 10 is refused."""
    result = [] if clear else list(current)
    for value in remove:
        origin = clean_origin(value, "remove")
        if origin not in result:
            raise ValidationError.for_field("remove", f"'{origin}' is not an allowed website")
        result.remove(origin)
    for value in add:
        origin = clean_origin(value, "add")
        if origin not in result:
            result.append(origin)
    if len(result) > ORIGINS_MAX:
        raise ValidationError.for_field(
            "add", f"a merchant may allow at most {ORIGINS_MAX} websites; remove one first"
        )
    return tuple(result)


def frame_id(invoice_number: str) -> str:
    return f"payhub-invoice-{invoice_number}"


def iframe_html(embed_url: str, invoice_number: str) -> str:
    """The ``<iframe>`` a merchant pastes into an allowed page."""
    return (
        f'<iframe id="{html.escape(frame_id(invoice_number))}" src="{html.escape(embed_url)}"'
        f' title="Pay invoice {html.escape(invoice_number)}"'
        ' style="width:100%;max-width:640px;border:0;min-height:480px"'
        ' allow="payment" loading="lazy"></iframe>'
    )


def resize_script_html(page_origin: str, invoice_number: str) -> str:
    """A script that resizes the frame on ``resize`` messages from payhub's own origin only."""
    config = json.dumps(
        {"origin": page_origin, "frame": frame_id(invoice_number), "source": MESSAGE_SOURCE}
    ).replace("</", "<\\/")
    return (
        "<script>(function(c){window.addEventListener('message',function(e){"
        "if(e.origin!==c.origin||!e.data||e.data.source!==c.source)return;"
        "var f=document.getElementById(c.frame);"
        "if(f&&e.data.type==='resize'&&e.data.height>0){f.style.height=e.data.height+'px';}"
        f"}});}})({config});</script>"
    )


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
