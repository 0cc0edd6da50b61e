"""CPU per request, in process: the steady measure on a shared machine (wall-clock req/s swing
3x here while other suites run). Each path is sent N times straight through payhub's ASGI app
(no server, no sockets, no wrk) on SQLite, after a warm-up; the figure is the whole process's
CPU time (``time.process_time``: every thread, the request log's writer included) divided by
the requests, in µs.

.venv/bin/python -m bench.cpu [--requests 2000] [--profile PATH]

``--profile gateways|create|charge`` prints the top of a cProfile of that path instead.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import tempfile
import time
from collections.abc import Callable
from typing import Any

from bench.harness import UNLIMITED

Send = Callable[[dict[str, Any]], Any]


class Asgi:
    """Calls an ASGI app the way a server does: one scope, one body, the response read."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def startup(self) -> None:
        """Run the app's startup hooks; the lifespan call then waits (cancelled at the end)."""
        started = asyncio.Event()
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.Event().wait()
            sent = True
            return {"type": "lifespan.startup"}

        async def send(message: dict[str, Any]) -> None:
            started.set()

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}}
        self._lifespan = asyncio.ensure_future(self.app(scope, receive, send))
        await started.wait()

    def stop(self) -> None:
        self._lifespan.cancel()

    async def call(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, bytes]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }
        given = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal given
            if given:
                await asyncio.Event().wait()
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, b"".join(chunks)


def _paths(key: str) -> dict[str, Callable[[int], tuple[str, str, dict[str, str], bytes]]]:
    auth = {"x-api-key": key}
    json_auth = {**auth, "content-type": "application/json"}
    charge = json.dumps(
        {
            "amount": {"value": 25.00, "currency": "USD"},
            "gatewayName": "simulator",
            "paymentMethodToken": "sim_card_ok",
        }
    ).encode()
    return {
        "gateways": lambda i: ("GET", "/api/gateways", auth, b""),
        "create": lambda i: (
            "POST",
            "/api/merchant-accounts",
            json_auth,
            json.dumps({"externalReference": f"cpu-{i}", "displayName": "CPU"}).encode(),
        ),
        "charge": lambda i: (
            "POST",
            "/api/payments/charge",
            {**json_auth, "x-merchant-reference": "cpu-shop"},
            charge,
        ),
    }


async def _measure(requests: int, profile: str | None) -> dict[str, float]:
    from payhub.hub import PayHub
    from payhub.logging import configure_logging
    from payhub_server.app import create_app
    from payhub_server.ratelimit import Limiter
    from payhub_server.requestlog import write_in_background

    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(UNLIMITED)
        hub = PayHub.open(f"sqlite:///{tmp}/cpu.db", key_file=f"{tmp}/k")
        _, issued = hub.operators.create_provider("CPU")
        configure_logging("json")
        log = open(os.devnull, "w")  # noqa: SIM115 - the request log's sink for the run
        os.dup2(log.fileno(), 1)  # the request log writes JSON lines to stdout
        write_in_background()
        app = create_app(hub)
        app.state.limiter = Limiter.from_env()
        asgi = Asgi(app)
        await asgi.startup()
        paths = _paths(issued.secret)
        status, _ = await asgi.call(
            *paths["create"](-1)[:3],
            json.dumps({"externalReference": "cpu-shop", "displayName": "CPU"}).encode(),
        )
        assert status == 201, status
        put = json.dumps({"apiSecret": "sim", "environment": "Sandbox", "enabled": True})
        status, _ = await asgi.call(
            "PUT",
            "/api/merchant-accounts/cpu-shop/credentials/simulator",
            {"x-api-key": issued.secret, "content-type": "application/json"},
            put.encode(),
        )
        assert status in (200, 201), status
        for name, make in paths.items():
            if profile is not None and name != profile:
                continue
            for i in range(200):  # warm-up: caches, the key cache, SQLite's page cache
                await asgi.call(*make(10_000_000 + i))
            profiler = cProfile.Profile() if profile else None
            started = time.process_time()
            if profiler:
                profiler.enable()
            for i in range(requests):
                status, body = await asgi.call(*make(i))
                if status >= 300:
                    raise SystemExit(f"{name}: {status} {body[:200]!r}")
            if profiler:
                profiler.disable()
            results[name] = (time.process_time() - started) / requests * 1e6
            if profiler:
                stats = pstats.Stats(profiler, stream=os.fdopen(os.dup(2), "w"))
                stats.sort_stats("cumulative").print_stats(45)
                stats.sort_stats("tottime").print_stats(30)
        asgi.stop()
        hub.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--profile", choices=["gateways", "create", "charge"])
    args = parser.parse_args()
    results = asyncio.run(_measure(args.requests, args.profile))
    out = os.fdopen(os.dup(2), "w")
    for name, us in results.items():
        print(f"{name}: {us:.0f} µs CPU per request ({args.requests} requests)", file=out)
    out.flush()


if __name__ == "__main__":
    main()
