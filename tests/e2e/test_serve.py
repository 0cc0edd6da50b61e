"""``payhub serve`` as a real process: first start, first key, first requests, clean stop."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from payhub import PayHub

pytestmark = pytest.mark.slow

KEY = re.compile(r"phk_sandbox_[a-z2-7]{16}_[a-z2-7]{52}")
FIRST = re.compile(r"issue one with: payhub keys create --provider (\S+)")
START_DEADLINE_S = 60.0
STOP_DEADLINE_S = 30.0


def payhub_command() -> list[str]:
    """The installed ``payhub`` script beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "payhub"
    return [str(script)] if script.exists() else [sys.executable, "-m", "payhub_cli.main"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYHUB_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class Server:
    process: subprocess.Popen[str]
    base_url: str
    db_url: str
    cwd: Path
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    seen: list[str] = field(default_factory=list)

    def read_until(self, pattern: re.Pattern[str], deadline: float) -> re.Match[str]:
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            if match := pattern.search(line):
                return match
        pytest.fail(f"server never printed {pattern.pattern!r}; output:\n{self.output}")

    @property
    def output(self) -> str:
        while not self.lines.empty():
            self.seen.append(self.lines.get_nowait())
        return "".join(self.seen)


def _pump(stream: Iterator[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def wait_healthy(server: Server, deadline: float) -> None:
    """Poll /healthz until it answers or the deadline passes (no fixed sleep)."""
    with httpx.Client(base_url=server.base_url, timeout=2.0) as http:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                pytest.fail(f"server exited with {server.process.returncode}:\n{server.output}")
            try:
                if http.get("/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)  # polling interval, not a wait for a guessed duration
    pytest.fail(f"/healthz did not answer in time; output:\n{server.output}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    port = free_port()
    db_url = f"sqlite:///{tmp_path / 'payhub.db'}"
    process = subprocess.Popen(
        [*payhub_command(), "serve", "--port", str(port), "--db", db_url],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, so its workers go with it
    )
    assert process.stdout is not None
    srv = Server(process, f"http://127.0.0.1:{port}", db_url, tmp_path)
    threading.Thread(target=_pump, args=(process.stdout, srv.lines), daemon=True).start()
    try:
        yield srv
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_DEADLINE_S)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                pytest.fail(f"server did not stop on SIGTERM; output:\n{srv.output}")


def test_first_start_prints_a_key_and_serves_the_api(server: Server) -> None:
    deadline = time.monotonic() + START_DEADLINE_S
    # Its output is a pipe (a log, for all it knows) and it has no terminal: the first
    # provider's key is not printed, the way to issue one is.
    first_provider = server.read_until(FIRST, deadline).group(1)
    server.read_until(re.compile(r"payhub listening on"), deadline)
    wait_healthy(server, deadline)
    assert (server.cwd / "payhub.key").exists()  # beside the database
    assert (server.cwd / "payhub.db").exists()
    command = [*payhub_command(), "keys", "create", "--provider", first_provider, "--json"]
    issued = subprocess.run(
        [*command, "--db", server.db_url],
        cwd=server.cwd.parent,  # another folder: the key file beside the database is found
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert issued.returncode == 0, issued.stderr
    first_key = json.loads(issued.stdout)["apiKey"]

    # The operator adds a provider with the CLI against the same database, meanwhile.
    created = subprocess.run(
        [
            *payhub_command(),
            "providers",
            "create",
            "Acme Software",
            "--json",
            "--db",
            server.db_url,
        ],
        cwd=server.cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    provider = json.loads(created.stdout)
    assert provider["apiKey"].startswith("phk_sandbox_")

    with httpx.Client(base_url=server.base_url, timeout=10.0) as http:
        refused = http.get("/api/gateways")
        assert refused.status_code == 401
        assert refused.headers["content-type"].startswith("application/problem+json")

        for key, ref in ((first_key, "first-shop"), (provider["apiKey"], "acme-42")):
            h = {"X-Api-Key": key}
            gateways = http.get("/api/gateways", headers=h)
            assert gateways.status_code == 200
            assert len(gateways.json()["data"]) == 22

            made = http.post(
                "/api/merchant-accounts",
                json={"externalReference": ref, "displayName": "Acme Plumbing"},
                headers=h,
            )
            assert made.status_code == 201, made.text

            put = http.put(
                f"/api/merchant-accounts/{ref}/credentials/stripe",
                json={"apiSecret": "sk_test_e2e_secret", "environment": "Sandbox"},
                headers=h,
            )
            assert put.status_code == 200, put.text
            assert "sk_test_e2e_secret" not in put.text

            listed = http.get("/api/merchant-accounts", headers=h).json()
            assert [m["externalReference"] for m in listed["data"]] == [ref]

        assert http.get("/reference").status_code == 200

    # What the server wrote is in the database, readable with the same key file.
    hub = PayHub.open(server.db_url, key_file=server.cwd / "payhub.key")
    try:
        acme = hub.provider(hub.authenticate(provider["apiKey"]))
        assert acme.merchants.get("acme-42").display_name == "Acme Plumbing"
        [credential] = acme.merchant("acme-42").credentials.list()
        assert credential.gateway == "stripe"
    finally:
        hub.close()

    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=STOP_DEADLINE_S) in (0, -signal.SIGTERM), server.output
    assert KEY.findall(server.output) == []  # no API key ever reached its output
