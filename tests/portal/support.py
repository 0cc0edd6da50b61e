"""Helpers for the portal's tests: people, a browser-like client, forms with their CSRF token."""

from __future__ import annotations

import re
from typing import Any

import pyotp
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.portal import PortalUserRecord

PASSWORD = "correct horse battery staple"
_CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found, "the page has no CSRF field"
    return found.group(1)


def token_of(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def make_user(
    hub: PayHub,
    email: str,
    role: str = "owner",
    merchant: str | None = None,
    password: str | None = PASSWORD,
    name: str = "Ann Owner",
    environment: Any = None,
) -> PortalUserRecord:
    """A portal user, its invitation accepted in-process (so it has a password)."""
    kwargs: dict[str, Any] = {"merchant_reference": merchant}
    if environment is not None:
        kwargs["environment"] = environment
    user = hub.portal.create_user(email, name, role, **kwargs)
    if password is not None:
        link = hub.portal.invite(user.id)
        hub.portal.accept_invite(token_of(link.url), password)
    return hub.portal.get_user(user.id)


class Browser:
    """A TestClient that behaves like one browser: cookies kept, redirects not followed."""

    def __init__(self, app: Litestar, base_url: str = "http://testserver.local") -> None:
        # Not entered: entering runs the app's lifespan, whose shutdown closes the hub that
        # the test and its other browsers share.
        self.client = TestClient(app, base_url=base_url)

    def close(self) -> None:
        self.client.cookies.clear()

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, follow_redirects=False, **kw)

    def post(self, path: str, data: dict[str, str], **kw: Any) -> Any:
        return self.client.post(path, data=data, follow_redirects=False, **kw)

    def submit(self, page: str, action: str, data: dict[str, str] | None = None, **kw: Any) -> Any:
        """Open ``page``, then post ``data`` to ``action`` with that page's CSRF token."""
        shown = self.get(page)
        assert shown.status_code == 200, (page, shown.status_code, shown.text[:500])
        return self.post(action, {"csrf_token": csrf_of(shown.text), **(data or {})}, **kw)

    def sign_in(self, email: str, password: str = PASSWORD, next_path: str | None = None) -> Any:
        action = "/portal/sign-in" + (f"?next={next_path}" if next_path else "")
        return self.submit("/portal/sign-in", action, {"email": email, "password": password})

    def code(self, code: str) -> Any:
        return self.submit("/portal/sign-in/code", "/portal/sign-in/code", {"code": code})

    def cookie(self, name: str = "payhub_portal") -> str | None:
        value: str | None = self.client.cookies.get(name)
        return value


def totp_now(secret: str, hub: PayHub, offset_steps: int = 0) -> str:
    totp = pyotp.TOTP(secret)
    return totp.generate_otp(totp.timecode(hub.deps.clock.now()) + offset_steps)


def enable_totp(hub: PayHub, user_id: str) -> tuple[str, list[str]]:
    setup = hub.portal.begin_totp(user_id)
    codes = hub.portal.confirm_totp(user_id, totp_now(setup.secret, hub))
    return setup.secret, codes
