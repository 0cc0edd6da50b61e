"""Real ``payhub serve`` processes for end-to-end tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

START_DEADLINE_S = 60.0


def payhub_command() -> list[str]:
    script = Path(sys.executable).parent / "payhub"
    return [str(script)] if script.exists() else [sys.executable, "-m", "payhub_cli.main"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def environment(key_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYHUB_")}
    env["PAYHUB_KEY_FILE"] = str(key_file)
    return env


def cli(db_url: str, cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [*payhub_command(), *args, "--db", db_url],
        cwd=cwd,
        env=environment(cwd / "payhub.key"),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def create_provider(db_url: str, cwd: Path) -> str:
    """A sandbox provider made with the CLI, as the operator would; returns its key."""
    key: str = json.loads(cli(db_url, cwd, "providers", "create", "E2E", "--json"))["apiKey"]
    return key


@contextmanager
def serve(
    db_url: str,
    cwd: Path,
    *,
    public_url: bool = False,
    log: bool = False,
    extra_env: dict[str, str] | None = None,
) -> Iterator[str]:
    """One ``payhub serve`` process; yields its base URL once /healthz answers.

    ``public_url`` makes the server's own address its ``PAYHUB_PUBLIC_URL`` (the links it
    builds then point at itself); ``log`` keeps its output in ``cwd/server-<port>.log``."""
    with serve_process(db_url, cwd, public_url=public_url, log=log, extra_env=extra_env) as (
        base,
        _,
    ):
        yield base


@contextmanager
def serve_process(
    db_url: str,
    cwd: Path,
    *,
    public_url: bool = False,
    log: bool = False,
    extra_env: dict[str, str] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``serve``, also yielding the process (for tests that kill it mid-request)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = environment(cwd / "payhub.key")
    if public_url:
        env["PAYHUB_PUBLIC_URL"] = base
    env.update(extra_env or {})
    with ExitStack() as stack:
        output: Any = (
            stack.enter_context((cwd / f"server-{port}.log").open("w"))
            if log
            else subprocess.DEVNULL
        )
        proc = subprocess.Popen(
            [*payhub_command(), "serve", "--db", db_url, "--port", str(port)],
            cwd=cwd,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + START_DEADLINE_S
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"payhub serve exited with {proc.returncode}")
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("payhub serve did not become healthy")
                time.sleep(0.05)  # polling interval while the process starts
            yield base, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextmanager
def servers(db_url: str, cwd: Path, count: int) -> Iterator[list[str]]:
    with ExitStack() as stack:
        yield [stack.enter_context(serve(db_url, cwd)) for _ in range(count)]
