"""payhub benchmarks against real server processes. Prints tables; asserts nothing about time.

.venv/bin/python -m bench.run foundation [--seconds 5]
"""

from __future__ import annotations

import argparse
from typing import Any

from bench.harness import ROOT, hello_server, payhub_server, print_table, wrk

LUA = ROOT / "bench" / "lua"


def foundation(seconds: int, db_url: str | None = None, label: str = "SQLite") -> None:
    with hello_server() as hello:
        base = wrk(f"{hello}/hello", seconds=seconds)
    with payhub_server(db_url) as (url, key):
        env = {"PAYHUB_BENCH_KEY": key}
        gateways = wrk(f"{url}/api/gateways", str(LUA / "get_with_key.lua"), seconds, env=env)
        create = wrk(
            f"{url}/api/merchant-accounts", str(LUA / "create_merchant.lua"), seconds, env=env
        )
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
            f"POST /api/merchant-accounts ({label})",
            create["rps"],
            create["p50"],
            create["p99"],
            create["rps"] / base["rps"],
            create["errors"],
        ],
    ]
    print_table(
        f"Foundation, granian 1 worker, wrk 2 threads x 16 connections, {seconds}s each",
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
    from bench.leasing import run

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
        f"Work leasing on PostgreSQL (FOR UPDATE SKIP LOCKED), {items} due items, batches of 20",
        rows,
        ["workers", "items", "items/s", "seconds", "taken", "taken twice"],
    )


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def payments(seconds: int) -> None:
    """Charges per second over HTTP, and payhub's added latency over the bare adapter."""
    import time
    from decimal import Decimal

    import httpx

    from payhub.adapters.gateways.simulator import SimulatorGateway
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
    with payhub_server() as (url, key):
        headers = {"X-Api-Key": key}
        httpx.post(
            f"{url}/api/merchant-accounts",
            headers=headers,
            json={"externalReference": "bench-shop", "displayName": "Bench"},
        )
        httpx.put(
            f"{url}/api/merchant-accounts/bench-shop/credentials/simulator",
            headers=headers,
            json={"apiSecret": "sim", "environment": "Sandbox", "enabled": True},
        )
        http = wrk(
            f"{url}/api/payments/charge",
            str(LUA / "charge.lua"),
            seconds,
            env={"PAYHUB_BENCH_KEY": key},
        )
    d50, d99 = _percentile(direct, 0.50), _percentile(direct, 0.99)
    print_table(
        f"Payments on SQLite, simulator at zero latency, {seconds}s of wrk (2 threads x 16)",
        [
            ["simulator adapter called directly", "-", d50, d99, "-"],
            ["POST /api/payments/charge", http["rps"], http["p50"], http["p99"], http["errors"]],
            [
                "added by payhub (HTTP, auth, ledger)",
                "-",
                http["p50"] - d50,
                http["p99"] - d99,
                "-",
            ],
            ["ratio HTTP / direct", "-", http["p50"] / d50, http["p99"] / d99, "-"],
        ],
        ["path", "charges/s", "p50 ms", "p99 ms", "non-2xx"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("suite", choices=["foundation", "stores", "leasing", "payments"])
    parser.add_argument("--items", type=int, default=5000, help="leasing: due items")
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    if args.suite == "foundation":
        foundation(args.seconds)
    elif args.suite == "stores":
        stores(args.seconds)
    elif args.suite == "leasing":
        leasing(args.items)
    elif args.suite == "payments":
        payments(args.seconds)


if __name__ == "__main__":
    main()
