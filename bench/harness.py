"""Start real server processes and load them with wrk; parse wrk's numbers."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
PAYHUB = str(Path(sys.executable).with_name("payhub"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], deadline_s: float = 30) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not become healthy")


# The request budgets stay on (their cost is part of every row) but are set far above what
# a benchmark sends; ``rate_limits=False`` switches them off to show that cost.
UNLIMITED = {
    "PAYHUB_RATE_LIMIT_KEY": "1000000000/60",
    "PAYHUB_RATE_LIMIT_MERCHANT": "1000000000/60",
}


@contextmanager
def payhub_server(
    db_url: str | None = None,
    workers: int = 1,
    rate_limits: bool = True,
    key_file: str | None = None,
    seed: int = 0,
) -> Iterator[tuple[str, str]]:
    """A real ``payhub serve`` process; yields (base URL, a sandbox provider key).

    ``key_file``: the master key to use, for a caller that runs other ``payhub`` commands on
    the same database (the database refuses any other key). ``seed``: units of rows made
    before the server starts (``bench/seed.py``; the growth run's ``--scale``)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PAYHUB_KEY_FILE": key_file or f"{tmp}/payhub.key", **UNLIMITED}
        if not rate_limits:
            env["PAYHUB_RATE_LIMITS"] = "off"
        db = db_url or f"sqlite:///{tmp}/payhub.db"
        created = subprocess.run(
            [PAYHUB, "providers", "create", "Bench", "--json", "--db", db],
            env=env,
            cwd=tmp,
            check=True,
            capture_output=True,
            text=True,
        )
        key = json.loads(created.stdout)["apiKey"]
        if seed:
            from bench.seed import seed as seed_rows

            started = time.perf_counter()
            made = seed_rows(db, env["PAYHUB_KEY_FILE"], key, seed)
            print(f"seeded {made} in {time.perf_counter() - started:.0f}s", flush=True)
        port = free_port()
        proc = subprocess.Popen(
            [PAYHUB, "serve", "--db", db, "--port", str(port), "--workers", str(workers)],
            env=env,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, 120 if seed else 30)
            yield f"http://127.0.0.1:{port}", key
        finally:
            proc.terminate()
            proc.wait(timeout=20)


@contextmanager
def hello_server() -> Iterator[str]:
    """The bare Litestar baseline on granian with the same settings as ``payhub serve``."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--factory",
            "--port",
            str(port),
            "--no-ws",
            "bench.hello_app:create",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(
    url: str,
    script: str | None = None,
    seconds: int = 5,
    connections: int = 16,
    threads: int = 2,
    env: dict[str, str] | None = None,
) -> dict[str, float]:
    """Run wrk; return requests/s, p50, p99 (ms), non-2xx/3xx responses, the number of
    completed requests, and any ``name: N`` totals a script's ``done`` prints."""
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install -y wrk")
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script:
        cmd += ["-s", script]
    out = subprocess.run(
        [*cmd, url], capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    # Anchored: the thread stats' "+/- Stdev" column may also end in "50%" or "99%".
    p50 = _ms(re.search(r"^\s*50%\s+(\S+)", out, re.MULTILINE).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"^\s*99%\s+(\S+)", out, re.MULTILINE).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    done = re.search(r"(\d+) requests in", out)
    extra = {m[1]: float(m[2]) for m in re.finditer(r"^([a-z_]+): (\d+)$", out, re.MULTILINE)}
    return {
        "rps": rps,
        "p50": p50,
        "p99": p99,
        "errors": float(bad.group(1)) if bad else 0.0,
        "requests": float(done.group(1)) if done else 0.0,
        **extra,
    }


def print_table(title: str, rows: list[list[object]], headers: list[str]) -> None:
    print(f"\n{title}")
    print(tabulate(rows, headers=headers, tablefmt="github", floatfmt=".2f"))
