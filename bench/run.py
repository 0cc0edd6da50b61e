"""payhub benchmarks against real server processes. Prints tables; asserts nothing about time.

.venv/bin/python -m bench.run foundation [--seconds 5]
"""

from __future__ import annotations

import argparse

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("suite", choices=["foundation"])
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    if args.suite == "foundation":
        foundation(args.seconds)


if __name__ == "__main__":
    main()
