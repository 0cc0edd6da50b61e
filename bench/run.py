"""payhub benchmarks against real server processes. Prints tables; asserts nothing about time.

.venv/bin/python -m bench.run foundation [--seconds 5]
.venv/bin/python -m bench.run links [--seconds 5]
.venv/bin/python -m bench.run webhooks [--items 2000]
.venv/bin/python -m bench.run payments [--seconds 5]   # SQLite 2x16 and 1x1, PostgreSQL 2 workers
Add ``--scale N`` to foundation, stores, payments or links to seed N units of rows first
(bench/seed.py; the growth run compares --scale 1 with --scale 10).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from typing import Any

from bench.harness import PAYHUB, ROOT, hello_server, payhub_server, print_table, wrk

LUA = ROOT / "bench" / "lua"
# Units of seeded rows (bench/seed.py) in each suite's database: ``--scale N``.
OPTIONS = {"scale": 0}


def _scale() -> int:
    return OPTIONS["scale"]


def _scale_note() -> str:
    return f", seeded with --scale {_scale()} (bench/seed.py)" if _scale() else ""


def foundation(seconds: int, db_url: str | None = None, label: str = "SQLite") -> None:
    with hello_server() as hello:
        base = wrk(f"{hello}/hello", seconds=seconds)
    with payhub_server(db_url, seed=_scale()) as (url, key):
        env = {"PAYHUB_BENCH_KEY": key}
        gateways = wrk(f"{url}/api/gateways", str(LUA / "get_with_key.lua"), seconds, env=env)
        create = wrk(
            f"{url}/api/merchant-accounts", str(LUA / "create_merchant.lua"), seconds, env=env
        )
    with payhub_server(db_url, rate_limits=False) as (url, key):
        env = {"PAYHUB_BENCH_KEY": key}
        unlimited = wrk(f"{url}/api/gateways", str(LUA / "get_with_key.lua"), seconds, env=env)
    rows = [
        ["bare Litestar GET /hello", base["rps"], base["p50"], base["p99"], 1.0, base["errors"]],
        [
            f"GET /api/gateways ({label})",
            gateways["rps"],
            gateways["p50"],
            gateways["p99"],
            gateways["rps"] / base["rps"],
            gateways["errors"],
        ],
        [
            f"GET /api/gateways ({label}), rate limits off",
            unlimited["rps"],
            unlimited["p50"],
            unlimited["p99"],
            unlimited["rps"] / base["rps"],
            unlimited["errors"],
        ],
        [
            f"POST /api/merchant-accounts ({label})",
            create["rps"],
            create["p50"],
            create["p99"],
            create["rps"] / base["rps"],
            create["errors"],
        ],
    ]
    print_table(
        f"Foundation, granian 1 worker, wrk 2 threads x 16 connections, {seconds}s each"
        + _scale_note(),
        rows,
        ["route", "req/s", "p50 ms", "p99 ms", "ratio to bare", "non-2xx"],
    )


def _pg_schema_url() -> tuple[str, Any]:
    """A fresh schema on the local PostgreSQL (PAYHUB_BENCH_POSTGRES_URL to override)."""
    import os
    import uuid

    import psycopg

    base = os.environ.get("PAYHUB_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
    schema = f"bench_{uuid.uuid4().hex[:10]}"

    def drop() -> None:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    return f"{base}?schema={schema}", drop


def stores(seconds: int) -> None:
    """The foundation benchmark on SQLite and on PostgreSQL."""
    foundation(seconds)
    url, drop = _pg_schema_url()
    try:
        foundation(seconds, url, "PostgreSQL")
    finally:
        drop()


def leasing(items: int) -> None:
    from bench.leasing import BATCH, run

    rows = []
    for workers in (1, 4):
        url, drop = _pg_schema_url()
        try:
            result = run(url, items, workers)
        finally:
            drop()
        rows.append(
            [
                workers,
                items,
                result["items_per_s"],
                result["seconds"],
                int(result["taken"]),
                int(result["duplicates"]),
            ]
        )
    print_table(
        f"Work leasing on PostgreSQL (FOR UPDATE SKIP LOCKED), {items} due items,"
        f" batches of {BATCH}",
        rows,
        ["workers", "items", "items/s", "seconds", "taken", "taken twice"],
    )


def schedules(items: int) -> None:
    from bench.schedules import run

    rows = []
    for workers in (1, 4):
        url, drop = _pg_schema_url()
        try:
            result = run(url, items, workers)
        finally:
            drop()
        rows.append(
            [
                workers,
                items,
                result["runs_per_s"],
                result["seconds"],
                int(result["charged"]),
                int(result["double"]),
            ]
        )
    print_table(
        f"Due scheduled-payment runs on PostgreSQL through the simulator, {items} schedules",
        rows,
        ["workers", "runs", "runs/s", "seconds", "charged", "double charges"],
    )


def webhooks(items: int) -> None:
    from bench.webhooks import EVENTS_PER_OBJECT, run

    rows = []
    for workers in (1, 4):
        url, drop = _pg_schema_url()
        try:
            result = run(url, items, workers)
        finally:
            drop()
        rows.append(
            [
                workers,
                items,
                result["events_per_s"],
                result["seconds"],
                int(result["received"]),
                int(result["twice"]),
                int(result["missing"]),
                int(result["out_of_order"]),
            ]
        )
    print_table(
        f"Webhook events delivered end to end on PostgreSQL to a loopback receiver, {items}"
        f" events ({EVENTS_PER_OBJECT} per object, in order per object)",
        rows,
        ["workers", "events", "events/s", "seconds", "POSTs", "twice", "missing", "out of order"],
    )


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def payments(seconds: int) -> None:
    """Charges per second over HTTP, and payhub's added latency over the bare adapter."""
    import time
    from decimal import Decimal

    from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
    from payhub.domain.money import Money
    from payhub.domain.payments import (
        ChargeRequest,
        GatewayCredentials,
        MethodType,
        PaymentSource,
    )

    adapter = SimulatorGateway()
    creds = GatewayCredentials("sim", sandbox=True)
    direct: list[float] = []
    for i in range(5000):
        started = time.perf_counter()
        adapter.charge(
            creds,
            ChargeRequest(
                Money(Decimal("25.00"), "USD"),
                PaymentSource(MethodType.CARD, token="sim_card_ok"),
                capture=True,
                idempotency_key=f"k{i}",
            ),
        )
        direct.append((time.perf_counter() - started) * 1000)
    script, env = str(LUA / "charge.lua"), None
    with payhub_server(seed=_scale()) as (url, key):
        _bench_shop(url, key)
        env = {"PAYHUB_BENCH_KEY": key}
        http = wrk(f"{url}/api/payments/charge", script, seconds, env=env)
        # One connection, one request at a time: the latency payhub adds to a charge.
        alone = wrk(f"{url}/api/payments/charge", script, seconds, 1, 1, env=env)
    pg_url, drop = _pg_schema_url()
    try:
        with payhub_server(pg_url, workers=2, seed=_scale()) as (url, key):
            _bench_shop(url, key)
            pg = wrk(f"{url}/api/payments/charge", script, seconds, env={"PAYHUB_BENCH_KEY": key})
    finally:
        drop()
    d50, d99 = _percentile(direct, 0.50), _percentile(direct, 0.99)

    def row(label: str, r: dict[str, float]) -> list[object]:
        return [label, r["rps"], r["p50"], r["p99"], r["errors"]]

    print_table(
        f"Payments, simulator at zero latency, {seconds}s of wrk each{_scale_note()}",
        [
            ["simulator adapter called directly", "-", d50, d99, "-"],
            row("POST /api/payments/charge, SQLite, 1 worker, wrk 2x16", http),
            row("same, concurrency 1 (wrk 1x1)", alone),
            [
                "added by payhub at concurrency 1 (p50 - direct p50)",
                "-",
                alone["p50"] - d50,
                alone["p99"] - d99,
                "-",
            ],
            row("POST /api/payments/charge, PostgreSQL, 2 workers, wrk 2x16", pg),
        ],
        ["path", "charges/s", "p50 ms", "p99 ms", "non-2xx"],
    )


def _bench_shop(url: str, key: str) -> None:
    """The merchant ``bench-shop`` with simulator credentials (charge.lua charges it)."""
    import httpx

    headers = {"X-Api-Key": key}
    httpx.post(
        f"{url}/api/merchant-accounts",
        headers=headers,
        json={"externalReference": "bench-shop", "displayName": "Bench"},
    ).raise_for_status()
    httpx.put(
        f"{url}/api/merchant-accounts/bench-shop/credentials/simulator",
        headers=headers,
        json={"apiSecret": "sim", "environment": "Sandbox", "enabled": True},
    ).raise_for_status()


LINK_HOST = "links.bench.test"
LINK_TARGET = "https://shop.example.com/pay?invoice=42"
# One connection per wrk thread: each stops itself between responses (see redirect.lua), so
# no request is left in flight and the counts can be compared exactly.
REDIRECT_CONNECTIONS = 8


CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def _redirects(url: str, seconds: int, agent: str | None = None) -> dict[str, float]:
    return wrk(
        url,
        str(LUA / "redirect.lua"),
        seconds + 2,  # wrk's own stop is only a backstop: the script stops each thread
        connections=REDIRECT_CONNECTIONS,
        threads=REDIRECT_CONNECTIONS,
        env={
            "PAYHUB_BENCH_HOST": LINK_HOST,
            "PAYHUB_BENCH_SECONDS": str(seconds),
            **({"PAYHUB_BENCH_AGENT": agent} if agent else {}),
        },
    )


def _short_link_run(db_url: str, seconds: int) -> tuple[dict[str, float], dict[str, float], int]:
    """Redirect load on one short link of a real ``payhub serve``, first as browsers (every
    redirect counts), then as a crawler (none does); and the click count payhub reports."""
    import httpx

    with (
        tempfile.TemporaryDirectory() as tmp,
        payhub_server(db_url, key_file=f"{tmp}/k", seed=_scale()) as (url, key),
    ):
        subprocess.run(
            [PAYHUB, "links", "domain", "set", "--environment", "sandbox", LINK_HOST],
            env={**os.environ, "PAYHUB_DATABASE_URL": db_url, "PAYHUB_KEY_FILE": f"{tmp}/k"},
            cwd=tmp,
            check=True,
            capture_output=True,
        )
        headers = {"X-Api-Key": key}
        created = httpx.post(
            f"{url}/api/short-links", headers=headers, json={"targetUrl": LINK_TARGET}
        )
        created.raise_for_status()
        code = created.json()["code"]
        # The server re-reads its short-link hosts every few seconds; probe with an agent
        # that is never counted, so the count read below is the benchmark's alone.
        probe = {"Host": LINK_HOST, "User-Agent": "curl/8.5.0"}
        deadline = time.monotonic() + 30
        while httpx.get(f"{url}/{code}", headers=probe).status_code != 302:
            if time.monotonic() > deadline:
                raise SystemExit("the short-link host never answered")
            time.sleep(0.2)
        counted = _redirects(f"{url}/{code}", seconds)
        uncounted = _redirects(f"{url}/{code}", seconds, agent=CRAWLER)
        link = httpx.get(f"{url}/api/short-links/{code}", headers=headers).json()
    return counted, uncounted, int(link["clickCount"])


def links(seconds: int) -> None:
    """Short-link redirects per second on SQLite and PostgreSQL beside a bare redirect route
    on the same server (granian, same settings), and the click counts after the run against
    the redirects sent."""
    with hello_server() as hello:
        base = _redirects(f"{hello}/AbCd1234", seconds)
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = _short_link_run(f"sqlite:///{tmp}/links.db", seconds)
    url, drop = _pg_schema_url()
    try:
        postgres = _short_link_run(url, seconds)
    finally:
        drop()

    def row(label: str, r: dict[str, float], clicks: object, equal: str) -> list[object]:
        rate = r["redirects_per_s"]
        ratio = rate / base["redirects_per_s"]
        return [label, rate, r["p50"], r["p99"], ratio, clicks, int(r["redirects"]), equal]

    rows = [row("bare Litestar redirect (reads nothing)", base, "-", "-")]
    mismatched = []
    for label, (counted, uncounted, clicks) in (("SQLite", sqlite), ("PostgreSQL", postgres)):
        sent = int(counted["redirects"])
        complete = not counted["not_redirects"] and not uncounted["not_redirects"]
        equal = clicks == sent == int(counted["requests"]) and complete
        if not equal:
            mismatched.append(label)
        rows.append(
            row(f"payhub short link, {label}, browsers", counted, clicks, "yes" if equal else "NO")
        )
        rows.append(
            row(f"payhub short link, {label}, a crawler (not counted)", uncounted, "+0", "-")
        )
    print_table(
        f"Short-link redirects, granian 1 worker, wrk {REDIRECT_CONNECTIONS} threads x 1"
        f" connection, {seconds}s each",
        rows,
        [
            "route",
            "redirects/s",
            "p50 ms",
            "p99 ms",
            "ratio to bare",
            "clicks counted",
            "redirects sent",
            "equal",
        ],
    )
    if mismatched:
        raise SystemExit(f"click counts differ from the redirects sent on {', '.join(mismatched)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "suite",
        choices=["foundation", "stores", "leasing", "payments", "links", "schedules", "webhooks"],
    )
    parser.add_argument("--items", type=int, default=5000, help="leasing: due items")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument(
        "--scale",
        type=int,
        default=0,
        help="foundation, stores, payments, links: seed N units of rows first (bench/seed.py)",
    )
    args = parser.parse_args()
    OPTIONS["scale"] = args.scale
    if args.suite == "foundation":
        foundation(args.seconds)
    elif args.suite == "stores":
        stores(args.seconds)
    elif args.suite == "leasing":
        leasing(args.items)
    elif args.suite == "payments":
        payments(args.seconds)
    elif args.suite == "links":
        links(args.seconds)
    elif args.suite == "schedules":
        schedules(args.items if args.items != 5000 else 200)
    elif args.suite == "webhooks":
        webhooks(args.items if args.items != 5000 else 2000)


if __name__ == "__main__":
    main()
