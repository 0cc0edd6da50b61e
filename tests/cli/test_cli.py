"""The ``payhub`` command, driven as an operator would: argv in, text or JSON out."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from cryptography.fernet import Fernet

from payhub import Environment, PayHub, Unauthenticated
from payhub.domain.keys import KeyKind, parse_key
from payhub.services.deps import KEY_TTL_S
from payhub_cli.main import cli

KEY = re.compile(r"ph[km]_(?:sandbox|live)_[a-z2-7]{16}_[a-z2-7]{52}")
Run = Callable[..., Result]


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'x.db'}"


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    return tmp_path / "k"


@pytest.fixture
def run(db_url: str, key_file: Path) -> Run:
    """``payhub ARGS --db …`` with the key file in tmp; the exit code is checked by default."""
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(key_file)})

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, [*args, "--db", db_url])
        assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
        return result

    return invoke


@pytest.fixture
def opened(db_url: str, key_file: Path) -> Iterator[PayHub]:
    """The same database and key file, opened in-process, as the server would."""
    hub = PayHub.open(db_url, key_file=key_file)
    yield hub
    hub.close()


def as_json(result: Result) -> Any:
    return json.loads(result.stdout)


def create_provider(run: Run, name: str = "Acme Software", *extra: str) -> dict[str, str]:
    created: dict[str, str] = as_json(run("providers", "create", name, "--json", *extra))
    return created


# --- init --------------------------------------------------------------------------------


def test_init_creates_the_database_and_prints_a_first_key_once(
    run: Run, key_file: Path, tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = tmp_path / "tty"  # stands for the person's terminal
    monkeypatch.setattr("payhub_cli.main.TERMINAL", str(terminal))
    first = run("init")
    assert "database ready" in first.output
    assert KEY.findall(first.output) == []  # standard output may be a log: never the key
    keys = KEY.findall(terminal.read_text())
    assert len(keys) == 1
    assert keys[0].startswith("phk_sandbox_")
    assert (tmp_path / "x.db").exists()
    assert key_file.exists()

    second = run("init")
    assert "database ready" in second.output
    assert KEY.findall(second.output + terminal.read_text()) == keys

    hub = PayHub.open(db_url, key_file=key_file)
    try:
        caller = hub.authenticate(keys[0])
        assert caller.environment is Environment.SANDBOX
        assert len(hub.operators.list_providers()) == 1
    finally:
        hub.close()


def test_without_a_terminal_the_first_key_is_not_printed_and_the_way_to_get_one_is(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: PayHub
) -> None:
    monkeypatch.setattr("payhub_cli.main.TERMINAL", str(tmp_path / "no" / "tty"))
    first = run("init")
    assert KEY.findall(first.output) == []
    [provider] = opened.operators.list_providers()
    assert f"payhub keys create --provider {provider.id}" in first.output
    made = as_json(run("keys", "create", "--provider", provider.id, "--json"))
    assert opened.authenticate(made["apiKey"]).provider_id == provider.id


# --- the master key ----------------------------------------------------------------------


def test_another_master_key_is_refused_with_a_message_and_no_traceback(
    run: Run, db_url: str, tmp_path: Path
) -> None:
    run("providers", "create", "Acme")
    other = tmp_path / "other.key"
    other.write_text(Fernet.generate_key().decode())
    refused = CliRunner(env={"PAYHUB_KEY_FILE": str(other)}).invoke(
        cli, ["providers", "list", "--db", db_url]
    )
    assert refused.exit_code == 1, refused.output
    assert "Traceback" not in refused.output
    assert refused.exception is not None
    assert "is not the key the database" in refused.output
    assert "PAYHUB_KEY_FILE" in refused.output


def test_commands_from_any_folder_share_the_key_beside_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No PAYHUB_KEY_FILE: the key file beside the SQLite file serves every folder."""
    monkeypatch.delenv("PAYHUB_KEY_FILE", raising=False)
    monkeypatch.delenv("PAYHUB_SECRET_KEY", raising=False)
    for name in ("data", "one", "two"):
        (tmp_path / name).mkdir()
    db = f"sqlite:///{tmp_path / 'data' / 'shop.db'}"
    runner = CliRunner()
    monkeypatch.chdir(tmp_path / "one")
    made = runner.invoke(cli, ["providers", "create", "Acme", "--json", "--db", db])
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(tmp_path / "two")
    listed = runner.invoke(cli, ["providers", "list", "--json", "--db", db])
    assert listed.exit_code == 0, listed.output
    assert [p["providerId"] for p in json.loads(listed.stdout)] == [
        json.loads(made.stdout)["providerId"]
    ]
    assert (tmp_path / "data" / "shop.key").exists()
    assert list((tmp_path / "one").iterdir()) == list((tmp_path / "two").iterdir()) == []
    hub = PayHub.open(db, key_file=tmp_path / "data" / "shop.key")
    try:
        hub.authenticate(json.loads(made.stdout)["apiKey"])
    finally:
        hub.close()


# --- providers ---------------------------------------------------------------------------


def test_providers_create_json_gives_a_working_key(run: Run, opened: PayHub) -> None:
    created = create_provider(run)
    assert set(created) == {"providerId", "apiKey", "environment"}
    assert created["environment"] == "Sandbox"
    assert created["apiKey"].startswith("phk_sandbox_")
    caller = opened.authenticate(created["apiKey"])
    assert caller.provider_id == created["providerId"]
    assert not caller.is_merchant_key
    [provider] = opened.operators.list_providers()
    assert (provider.id, provider.name) == (created["providerId"], "Acme Software")


def test_a_production_provider_gets_a_live_key(run: Run, opened: PayHub) -> None:
    created = create_provider(run, "Live Co", "--environment", "production")
    assert created["environment"] == "Production"
    parsed = parse_key(created["apiKey"])
    assert parsed is not None
    assert created["apiKey"].startswith("phk_live_")
    assert parsed.environment is Environment.PRODUCTION
    assert opened.authenticate(created["apiKey"]).environment is Environment.PRODUCTION


def test_providers_create_as_text_shows_the_key_once(run: Run) -> None:
    result = run("providers", "create", "Text Co")
    assert len(KEY.findall(result.output)) == 1
    assert "shown only once" in result.output


def test_providers_list(run: Run) -> None:
    created = create_provider(run)
    table = run("providers", "list").output
    assert created["providerId"] in table
    assert "Acme Software" in table
    assert created["apiKey"] not in table
    [row] = as_json(run("providers", "list", "--json"))
    assert row["providerId"] == created["providerId"]
    assert row["environment"] == "Sandbox"


@pytest.mark.parametrize("name", ["", "   "])
def test_a_blank_provider_name_is_refused(run: Run, opened: PayHub, name: str) -> None:
    result = run("providers", "create", name, code=2)
    assert "name: must not be blank" in result.output
    assert "Traceback" not in result.output
    assert opened.operators.list_providers() == []


def test_an_unknown_environment_is_refused(run: Run) -> None:
    result = run("providers", "create", "X", "--environment", "staging", code=2)
    assert "staging" in result.output


# --- keys --------------------------------------------------------------------------------


def make_merchant(hub: PayHub, provider_id: str, ref: str) -> None:
    hub.provider(hub.as_provider(provider_id)).merchants.create(ref, f"Shop {ref}")


def test_keys_create_for_a_merchant_gives_a_merchant_key(run: Run, opened: PayHub) -> None:
    created = create_provider(run)
    make_merchant(opened, created["providerId"], "shop-1")
    issued = as_json(run("keys", "create", "--merchant", "shop-1", "--json"))
    assert issued["merchantReference"] == "shop-1"
    assert issued["providerId"] == created["providerId"]
    parsed = parse_key(issued["apiKey"])
    assert parsed is not None
    assert parsed.kind is KeyKind.MERCHANT
    caller = opened.authenticate(issued["apiKey"])
    assert caller.is_merchant_key
    scope = opened.provider(caller)
    assert scope.merchants.get("shop-1").external_reference == "shop-1"


def test_keys_create_for_the_provider(run: Run, opened: PayHub) -> None:
    created = create_provider(run)
    text = run("keys", "create", "--provider", created["providerId"], "--label", "ci").output
    [key] = KEY.findall(text)
    assert key.startswith("phk_sandbox_")
    assert opened.authenticate(key).provider_id == created["providerId"]


def test_keys_create_for_an_unknown_merchant_fails_clearly(run: Run, opened: PayHub) -> None:
    create_provider(run)
    result = run("keys", "create", "--merchant", "no-such-shop", code=1)
    assert "no merchant with externalReference 'no-such-shop'" in result.output
    assert "Traceback" not in result.output
    assert len(opened.operators.list_keys()) == 1  # only the provider's first key


def test_keys_create_needs_a_provider_when_there_are_several(run: Run) -> None:
    create_provider(run, "One")
    create_provider(run, "Two")
    result = run("keys", "create", code=2)
    assert "provider" in result.output


def test_keys_list_never_shows_a_secret(run: Run, opened: PayHub) -> None:
    created = create_provider(run)
    make_merchant(opened, created["providerId"], "shop-1")
    merchant_key = as_json(run("keys", "create", "--merchant", "shop-1", "--json"))["apiKey"]
    table = run("keys", "list").output
    listing = run("keys", "list", "--json").stdout
    for key in (created["apiKey"], merchant_key):
        parsed = parse_key(key)
        assert parsed is not None
        secret_half = key.rsplit("_", 1)[1]
        for output in (table, listing):
            assert key not in output
            assert secret_half not in output
            assert parsed.key_id in output  # recognisable by its public part
    rows = json.loads(listing)
    assert sorted(r["merchantReference"] or "" for r in rows) == ["", "shop-1"]
    assert all(r["revokedAtUtc"] is None for r in rows)
    assert "active" in table


def test_keys_revoke_makes_authentication_fail(run: Run, opened: PayHub) -> None:
    created = create_provider(run)
    issued = as_json(run("keys", "create", "--json"))
    assert opened.authenticate(issued["apiKey"])
    result = run("keys", "revoke", issued["keyId"])
    assert f"key {issued['keyId']} revoked" in result.output
    # ``opened`` is another hub, as a running server is another process: it has the key in
    # its cache and refuses it within the documented bound (docs/authentication.md).
    deadline = time.monotonic() + KEY_TTL_S + 3.0
    while True:
        try:
            opened.authenticate(issued["apiKey"])
        except Unauthenticated:
            break
        assert time.monotonic() < deadline, "the revoked key still works after the bound"
        time.sleep(0.05)  # polling interval, not an assertion
    assert opened.authenticate(created["apiKey"])  # the other key still works
    run("keys", "revoke", issued["keyId"])  # repeating is harmless
    rows = {r["keyId"]: r for r in as_json(run("keys", "list", "--json"))}
    assert rows[issued["keyId"]]["revokedAtUtc"] is not None


def test_keys_revoke_by_the_public_id_inside_the_key(run: Run, opened: PayHub) -> None:
    created = create_provider(run)
    parsed = parse_key(created["apiKey"])
    assert parsed is not None
    run("keys", "revoke", parsed.key_id)
    with pytest.raises(Unauthenticated):
        opened.authenticate(created["apiKey"])


def test_keys_revoke_an_unknown_key_fails_clearly(run: Run) -> None:
    result = run("keys", "revoke", "key_nope", code=1)
    assert "no API key 'key_nope'" in result.output


# --- merchants ---------------------------------------------------------------------------


def test_merchants_list_as_table_and_json(run: Run, opened: PayHub) -> None:
    assert "no merchants yet" in run("merchants", "list").output
    created = create_provider(run)
    other = create_provider(run, "Other Co")
    make_merchant(opened, created["providerId"], "shop-b")
    make_merchant(opened, created["providerId"], "shop-a")
    make_merchant(opened, other["providerId"], "elsewhere")

    table = run("merchants", "list", "--provider", created["providerId"]).output
    assert "REFERENCE" in table
    assert table.index("shop-a") < table.index("shop-b")
    assert "Shop shop-a" in table
    assert "elsewhere" not in table

    rows = as_json(run("merchants", "list", "--json"))
    assert sorted(r["externalReference"] for r in rows) == ["elsewhere", "shop-a", "shop-b"]
    assert set(rows[0]) == {"externalReference", "displayName", "providerId", "createdAtUtc"}
    mine = as_json(run("merchants", "list", "--json", "--provider", created["providerId"]))
    assert [r["externalReference"] for r in mine] == ["shop-a", "shop-b"]


# --- database ----------------------------------------------------------------------------


def test_db_status_and_migrate(run: Run, tmp_path: Path) -> None:
    before = run("db", "status").output
    assert "pending" in before
    assert "VERSION" in before
    applied = run("db", "migrate").output
    assert applied.startswith("applied: 1")
    assert "schema is up to date" in run("db", "migrate").output
    after = run("db", "status").output
    assert "pending" not in after
    assert "UTC" in after
    assert (tmp_path / "x.db").exists()


def test_commands_read_the_database_url_from_the_environment(
    db_url: str, key_file: Path, opened: PayHub
) -> None:
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(key_file), "PAYHUB_DATABASE_URL": db_url})
    result = runner.invoke(cli, ["providers", "create", "Env Co", "--json"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in opened.operators.list_providers()] == ["Env Co"]


def test_help_and_version() -> None:
    runner = CliRunner()
    assert "providers" in runner.invoke(cli, ["--help"]).output
    version = runner.invoke(cli, ["--version"])
    assert version.exit_code == 0
    assert "0.1.0" in version.output
