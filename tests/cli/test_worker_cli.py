"""``payhub worker --once``: one pass for cron-style deployment."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from payhub_cli.main import cli


def test_worker_once_runs_a_pass_and_exits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(tmp_path / "k"))
    result = CliRunner().invoke(cli, ["worker", "--once", "--db", f"sqlite:///{tmp_path}/x.db"])
    assert result.exit_code == 0, result.output
    assert "queues:" in result.output
    assert "outbox" in result.output
