"""Rendering the public pages: one Jinja environment and the security headers every page sends.

Headers, and why:

- ``Content-Security-Policy``: scripts only from payhub itself (the pages have no inline
  script; settings travel in a ``application/json`` block) and, on a page that collects a
  payment, from the vendor hosts of that page's gateway only (``drivers.VendorHosts``: its
  SDK's script, frame and API origins); no plugins, no foreign forms; ``frame-ancestors`` is
  ``'none'`` except on the embed page, where it lists the merchant's allowed websites.
- ``X-Frame-Options: DENY`` on every page but the embed page (older browsers).
- ``Cache-Control: no-store``: pages carry an invoice's personal data and one-time tokens.
- ``Referrer-Policy: no-referrer``: the pay link is the only key to the page; it must not
  leak to a gateway's script host or any link the payer follows.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from litestar import Response

from payhub_server.pages.drivers import VendorHosts

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
HTML = "text/html"  # Litestar adds the charset


@cache
def environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def content_security_policy(
    frame_ancestors: tuple[str, ...] = (), vendor: VendorHosts | None = None
) -> str:
    vendor = vendor or VendorHosts()
    ancestors = " ".join(frame_ancestors) if frame_ancestors else "'none'"
    scripts = " ".join(("'self'", *vendor.script))
    frames = " ".join(vendor.frame) or "'none'"
    connect = " ".join(("'self'", *vendor.connect))
    return (
        "default-src 'none'; "
        f"script-src {scripts}; "
        "style-src 'self'; img-src 'self' data:; font-src 'self'; "
        f"connect-src {connect}; frame-src {frames}; "
        "form-action 'self'; base-uri 'none'; "
        f"frame-ancestors {ancestors}"
    )


def security_headers(
    frame_ancestors: tuple[str, ...] | None = None, vendor: VendorHosts | None = None
) -> dict[str, str]:
    """``frame_ancestors`` None: the page may not be framed at all."""
    headers = {
        "Content-Security-Policy": content_security_policy(frame_ancestors or (), vendor),
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Robots-Tag": "noindex, nofollow",
        "Cross-Origin-Opener-Policy": "same-origin",
    }
    if frame_ancestors is None:
        headers["X-Frame-Options"] = "DENY"
    return headers


def html_page(
    template: str,
    status: int = 200,
    frame_ancestors: tuple[str, ...] | None = None,
    vendor: VendorHosts | None = None,
    **context: Any,
) -> Response[bytes]:
    body = environment().get_template(template).render(**context).encode("utf-8")
    return Response(
        body,
        status_code=status,
        media_type=HTML,
        headers=security_headers(frame_ancestors, vendor),
    )


def message_page(status: int, title: str, text: str) -> Response[bytes]:
    return html_page("message.html", status=status, title=title, text=text)


NOT_FOUND_TEXT = (
    "There is no invoice at this address. Check that the link is complete, or ask the merchant"
    " who sent it for a new one."
)
