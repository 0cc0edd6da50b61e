"""What several HTTP tests need: the app's operations, read from its routes, and problem checks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
from litestar import Litestar

PROBLEM_JSON = "application/problem+json"
_PARAM = re.compile(r"\{(\w+)(?::[^}]*)?\}")
_NOT_OPERATIONS = {"OPTIONS", "HEAD"}


@dataclass(frozen=True)
class Operation:
    """One method on one route, e.g. ``PUT /api/merchant-accounts/{ref}/credentials/{gateway}``."""

    method: str
    route: str  # as Litestar writes it: ``/api/merchant-accounts/{ref:str}``
    audience: str  # the route's ``opt["audience"]``: public, provider or merchant

    @property
    def template(self) -> str:
        return _PARAM.sub(r"{\1}", self.route)

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(_PARAM.findall(self.route))

    def path(self, **values: str) -> str:
        return _PARAM.sub(lambda m: values[m.group(1)], self.route)

    def __str__(self) -> str:
        return f"{self.method} {self.template}"


def operations(app: Litestar, prefix: str = "/api") -> list[Operation]:
    """Every operation the app serves under ``prefix``, straight from its route table."""
    found = []
    for route in app.routes:
        if not (route.path == prefix or route.path.startswith(prefix + "/")):
            continue
        for handler in getattr(route, "route_handlers", []):
            audience = handler.opt.get("audience", "public")
            for method in sorted(getattr(handler, "http_methods", ())):
                if method not in _NOT_OPERATIONS:
                    found.append(Operation(method, route.path, audience))
    return sorted(found, key=str)


def problem(response: httpx.Response, status: int) -> dict[str, Any]:
    """Assert an RFC 9457 problem with ``status`` and return its body."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith(PROBLEM_JSON), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"].startswith("/problems/")
    assert isinstance(body["title"], str)
    assert body["title"]
    assert isinstance(body["detail"], str)
    assert body["detail"]
    assert body.get("requestId") == response.headers.get("x-request-id")
    return body


def error_fields(response: httpx.Response) -> list[str]:
    """The fields a 400 problem names in ``errors``."""
    return [e["field"] for e in problem(response, 400).get("errors", [])]
