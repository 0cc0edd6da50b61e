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


def test_jobs_dead_lists_given_up_jobs_and_revive_makes_them_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime

    from payhub import PayHub
    from payhub.ports import Job

    monkeypatch.setenv("PAYHUB_KEY_FILE", str(tmp_path / "k"))
    db = f"sqlite:///{tmp_path}/x.db"
    hub = PayHub.open(db)
    now = datetime.now(UTC)
    with hub.store.unit_of_work() as uow:
        uow.jobs.enqueue(Job("job_1", "outbox", {"message_id": "msg_1"}, now, 0))
        [job] = uow.jobs.lease("outbox", now, "w", 1, now)
        uow.jobs.bury(job.id, "w", now, "RuntimeError: SMTP server refused")
    hub.close()
    runner = CliRunner()

    listed = runner.invoke(cli, ["jobs", "dead", "--db", db])
    assert listed.exit_code == 0, listed.output
    assert "LAST ERROR" in listed.output
    assert "job_1" in listed.output
    assert "RuntimeError: SMTP server refused" in listed.output

    revived = runner.invoke(cli, ["jobs", "revive", "job_1", "--db", db])
    assert revived.exit_code == 0, revived.output
    assert "no dead jobs" in runner.invoke(cli, ["jobs", "dead", "--db", db]).output
    again = runner.invoke(cli, ["jobs", "revive", "job_1", "--db", db])
    assert again.exit_code != 0
    assert "no dead job 'job_1'" in again.output
