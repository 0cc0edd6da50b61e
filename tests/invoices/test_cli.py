"""The portal's invoice commands: number format, embed websites and the invoice list."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from payhub import PayHub
from payhub_cli.main import cli
from tests.invoices.conftest import Invoicing

Run = Callable[..., Result]

pytestmark = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)


@pytest.fixture
def run(store_url: str, key_file: Path, hub: PayHub) -> Run:
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(key_file)})

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, ["invoices", *args, "--db", store_url])
        assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
        return result

    return invoke


def test_number_format_show_set_and_refuse(run: Run, shop: Invoicing) -> None:
    shown = run("number-format", "--merchant", "acme")
    assert "default" in shown.output
    assert "INV-000001" in shown.output
    set_ = run("number-format", "--merchant", "acme", "{YYYY}-{#####}", "--start", "100", "--json")
    shown_json = json.loads(set_.stdout)
    assert shown_json["numberFormat"] == "{YYYY}-{#####}"
    assert shown_json["startingNumber"] == 100
    assert shown_json["example"].endswith("-00100")  # the CLI runs on the real clock
    assert shop.invoice()["invoiceNumber"] == "2025-00100"
    too_long = run("number-format", "--merchant", "acme", "VERYLONGPREFIX-{######}", code=2)
    assert "at most 20" in too_long.output
    bad = run("number-format", "--merchant", "acme", "INV-{NN}", code=2)
    assert "unknown token" in bad.output
    assert (
        json.loads(run("number-format", "--merchant", "acme", "--json").stdout)["numberFormat"]
        == "{YYYY}-{#####}"
    )
    run("number-format", "--merchant", "acme", "--default")
    assert shop.invoice()["invoiceNumber"] == "INV-000001"


def test_embed_origins_add_remove_clear_and_refuse(run: Run, shop: Invoicing) -> None:
    assert "no website" in run("embed-origins", "--merchant", "acme").output
    added = run(
        "embed-origins", "--merchant", "acme",
        "--add", "https://Shop.example/", "--add", "https://blog.example:8443", "--json",
    )  # fmt: skip
    assert json.loads(added.stdout) == {
        "allowedOrigins": ["https://shop.example", "https://blog.example:8443"]
    }
    stored = shop.read(lambda uow, m: uow.invoices.settings(m).embed_origins)
    assert stored == ("https://shop.example", "https://blog.example:8443")
    for bad, reason in (
        ("http://shop.example", "https://"),
        ("https://shop.example/pay", "without a path"),
        ("https://*.shop.example", "wildcards"),
    ):
        refused = run("embed-origins", "--merchant", "acme", "--add", bad, code=2)
        assert reason in refused.output
    many = [a for i in range(9) for a in ("--add", f"https://s{i}.example")]
    assert "at most 10" in run("embed-origins", "--merchant", "acme", *many, code=2).output
    assert shop.read(lambda uow, m: uow.invoices.settings(m).embed_origins) == stored
    removed = run("embed-origins", "--merchant", "acme", "--remove", "https://shop.example")
    assert removed.output.strip() == "https://blog.example:8443"
    run("embed-origins", "--merchant", "acme", "--clear")
    assert shop.read(lambda uow, m: uow.invoices.settings(m).embed_origins) == ()


def test_list_prints_a_table(run: Run, shop: Invoicing, customer: dict[str, Any]) -> None:
    assert "no invoices" in run("list", "--merchant", "acme").output
    first = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    second = shop.invoice()["invoiceNumber"]
    text = run("list", "--merchant", "acme").output
    assert "NUMBER" in text
    assert first in text
    assert second in text
    assert "$25.00" in text  # money as the pages show it
    assert "Ada Lovelace" in text  # the customer by name
    only = json.loads(
        run("list", "--merchant", "acme", "--customer", customer["customerId"], "--json").stdout
    )
    assert [x["invoiceNumber"] for x in only["data"]] == [first]
    paged = run("list", "--merchant", "acme", "--limit", "1").output
    assert f"--starting-after {second}" in paged
