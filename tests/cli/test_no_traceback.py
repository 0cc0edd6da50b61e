"""The ``payhub`` command never shows a traceback: every command of the click tree, walked
from ``cli`` (a new command is covered without being listed), run with bad arguments, an
unknown merchant and bad database URLs, ends with one clear ``Error:`` line and a documented
exit code (payhub_cli/errors.py, docs/errors.md): 1 refused, 2 bad input, 3 database
unavailable. 4 (a payhub bug) never happens here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from payhub import Environment, PayHub
from payhub_cli.errors import shown_url
from payhub_cli.main import cli

# Commands that would run until stopped if their arguments were good.
LONG_RUNNING = {("serve",), ("worker",)}
BAD_DATABASES = {
    "mysql://root@db/payhub": 2,  # not a database payhub speaks
    "postgresql://app:s3cret-pw@127.0.0.1:1/payhub": 3,  # nothing listens
    "sqlite:////nonexistent-dir/sub/payhub.db": 3,  # cannot be created
}


def leaf_commands(
    group: click.Group = cli, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name in sorted(group.commands):
        command = group.commands[name]
        if isinstance(command, click.Group):
            yield from leaf_commands(command, (*path, name))
        else:
            yield (*path, name), command


COMMANDS = list(leaf_commands())


def ids(item: tuple[tuple[str, ...], click.Command]) -> str:
    return " ".join(item[0])


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    hub = PayHub.open(url, key_file=tmp_path / "k")
    provider, _ = hub.operators.create_provider("Acme", Environment.SANDBOX)
    hub.provider(hub.as_provider(provider.id)).merchants.create("shop", "The Shop")
    hub.close()
    return url


@pytest.fixture
def runner(tmp_path: Path) -> CliRunner:
    return CliRunner(env={"PAYHUB_KEY_FILE": str(tmp_path / "k"), "PAYHUB_DEBUG": ""})


def has_db(command: click.Command) -> bool:
    return any(p.name == "db_url" for p in command.params)


def _valid(p: click.Parameter, value: str) -> str:
    """``value``, or for a choice or a number a value the parameter's type accepts."""
    if isinstance(p.type, click.Choice):
        return str(p.type.choices[0])
    if isinstance(p.type, click.IntRange | click.FloatRange):
        return str(p.type.min if p.type.min is not None else 1)
    return value


def required_args(command: click.Command, value: str) -> list[str]:
    """``value`` for every required argument and option (the smallest call that runs past
    click: choices and numbers get a value their type accepts)."""
    args: list[str] = []
    for p in command.params:
        if isinstance(p, click.Argument) and p.required:
            args += [_valid(p, value)] * (p.nargs if p.nargs > 0 else 1)
        elif isinstance(p, click.Option) and p.required and not p.is_flag:
            args += [p.opts[0], _valid(p, value)]
    return args


def every_arg(command: click.Command, value: str) -> list[str]:
    """``value`` for every argument and every option that takes a value (but ``--db``)."""
    args: list[str] = []
    for p in command.params:
        if isinstance(p, click.Argument):
            args += [value] * (p.nargs if p.nargs > 0 else 1)
        elif (
            isinstance(p, click.Option)
            and not p.is_flag
            and p.name != "db_url"
            and not p.hidden
            and p.opts[0].startswith("--")
        ):
            args += [p.opts[0], value]
    return args


def clean_failure(result: Result, codes: set[int], argv: list[str]) -> None:
    where = (argv, result.exit_code, result.output[-600:])
    assert result.exit_code in codes, where
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        *where,
        repr(result.exception),
    )
    assert "Traceback" not in result.output, where
    if result.exit_code:
        assert "Error" in result.output, where  # click's "Error: …" or "Usage: … Error: …"


def test_the_walk_finds_the_whole_tree() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"merchants time-zone", "invoices list", "schedules list", "db migrate"} <= names
    assert len(names) >= 40


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[ids(c) for c in COMMANDS])
def test_every_command_fails_cleanly_with_bad_arguments(
    runner: CliRunner, db_url: str, path: tuple[str, ...], command: click.Command
) -> None:
    db = ["--db", db_url] if has_db(command) else []
    unknown = [*path, "--no-such-option", *db]
    clean_failure(runner.invoke(cli, unknown), {2}, unknown)
    for value in ("X", "-1", "9" * 30, "\u202e", ""):
        argv = [*path, *every_arg(command, value), *db]
        clean_failure(runner.invoke(cli, argv), {0, 1, 2}, argv)
    if path not in LONG_RUNNING:
        argv = [*path, *required_args(command, "X"), *db]
        clean_failure(runner.invoke(cli, argv), {0, 1, 2}, argv)


@pytest.mark.parametrize(
    ("path", "command"),
    [c for c in COMMANDS if has_db(c[1])],
    ids=[ids(c) for c in COMMANDS if has_db(c[1])],
)
def test_every_command_says_when_the_database_cannot_be_used(
    runner: CliRunner, path: tuple[str, ...], command: click.Command
) -> None:
    for url, code in BAD_DATABASES.items():
        argv = [*path, *required_args(command, "X"), "--db", url]
        result = runner.invoke(cli, argv)
        clean_failure(result, {code}, argv)
        assert "s3cret-pw" not in result.output  # the password is never printed
        if code == 3:
            assert shown_url(url) in result.output


def test_a_bad_time_zone_for_a_real_merchant_is_a_usage_error(
    runner: CliRunner, db_url: str
) -> None:
    for zone in ("Pacific", "Mars/Olympus", "../../etc/passwd", "UTC+99", ""):
        argv = ["merchants", "time-zone", "--merchant", "shop", zone, "--db", db_url]
        result = runner.invoke(cli, argv)
        clean_failure(result, {2}, argv)
        assert "time zone" in result.output.lower() or "timezone" in result.output.lower()


def test_an_unknown_merchant_is_refused_with_exit_1(runner: CliRunner, db_url: str) -> None:
    argv = ["merchants", "time-zone", "--merchant", "X", "Pacific", "--db", db_url]
    result = runner.invoke(cli, argv)
    clean_failure(result, {1}, argv)
    assert "no merchant with externalReference 'X'" in result.output


def test_an_unexpected_failure_is_one_line_and_exit_4(
    runner: CliRunner, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(PayHub, "close", broken)
    argv = ["merchants", "list", "--db", db_url]
    result = runner.invoke(cli, argv)
    clean_failure(result, {4}, argv)
    assert "RuntimeError: disk on fire" in result.output
    assert "PAYHUB_DEBUG=1" in result.output


def test_shown_url_hides_only_the_password() -> None:
    assert shown_url("postgresql://app:pw@db:5432/payhub") == "postgresql://app:***@db:5432/payhub"
    assert shown_url("sqlite:///x.db") == "sqlite:///x.db"
