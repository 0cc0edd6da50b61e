"""``payhub links``: domains, switches, the blocklist and API usage, as an operator runs them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from payhub import Environment, Forbidden, PayHub
from payhub.services.links import LinkInput
from payhub_cli.main import cli

Run = Callable[..., Result]


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'links.db'}"


@pytest.fixture
def run(db_url: str, tmp_path: Path) -> Run:
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(tmp_path / "k")})

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, [*args, "--db", db_url])
        assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
        return result

    return invoke


@pytest.fixture
def opened(db_url: str, tmp_path: Path, run: Run) -> Iterator[PayHub]:
    run("init")
    hub = PayHub.open(db_url, key_file=tmp_path / "k")
    yield hub
    hub.close()


@pytest.fixture
def provider(run: Run, opened: PayHub) -> dict[str, Any]:
    created: dict[str, Any] = json.loads(run("providers", "create", "Acme", "--json").stdout)
    scope = opened.provider(opened.authenticate(created["apiKey"]))
    scope.merchants.create("shop-1", "Shop 1")
    scope.merchants.create("shop-2", "Shop 2")
    return created


def test_domains_are_set_shown_and_cleared(run: Run, opened: PayHub) -> None:
    assert "(none: creating links answers 503)" in run("links", "domain", "show").stdout
    out = run("links", "domain", "set", "--environment", "sandbox", "SBX.Links.Example.com").stdout
    assert "https://sbx.links.example.com/" in out
    run("links", "domain", "set", "--environment", "production", "links.example.com")
    shown = json.loads(run("links", "domain", "show", "--json").stdout)
    assert shown == {"Sandbox": "sbx.links.example.com", "Production": "links.example.com"}
    assert opened.link_admin.domains()[Environment.SANDBOX] == "sbx.links.example.com"
    run("links", "domain", "clear", "--environment", "production")
    assert json.loads(run("links", "domain", "show", "--json").stdout)["Production"] is None


def test_a_bad_domain_or_one_shared_by_both_environments_is_refused(run: Run) -> None:
    assert (
        "host name"
        in run("links", "domain", "set", "--environment", "sandbox", "a b", code=2).output
    )
    run("links", "domain", "set", "--environment", "sandbox", "links.example.com")
    refused = run(
        "links", "domain", "set", "--environment", "production", "LINKS.example.com", code=2
    )
    assert "different domains" in refused.output
    run("links", "domain", "set", "--environment", "sandbox", "", code=2)


def test_disable_and_enable_a_provider_and_a_merchant(
    run: Run, opened: PayHub, provider: dict[str, Any]
) -> None:
    run("links", "domain", "set", "--environment", "sandbox", "sbx.links.example.com")
    scope = opened.provider(opened.authenticate(provider["apiKey"]))
    pid = provider["providerId"]
    assert "off for provider" in run("links", "disable", "--provider", pid).stdout
    with pytest.raises(Forbidden):
        scope.short_links.create(LinkInput("https://shop.example.com/"))
    run("links", "enable", "--provider", pid)
    scope.short_links.create(LinkInput("https://shop.example.com/"))
    out = run("links", "disable", "--provider", pid, "--merchant", "shop-1").stdout
    assert "off for merchant shop-1" in out
    with pytest.raises(Forbidden):
        scope.short_links.create(
            LinkInput("https://shop.example.com/", merchant_reference="shop-1")
        )
    scope.short_links.create(LinkInput("https://shop.example.com/", merchant_reference="shop-2"))
    run("links", "enable", "--provider", pid, "--merchant", "shop-1")
    scope.short_links.create(LinkInput("https://shop.example.com/", merchant_reference="shop-1"))
    assert (
        "no merchant"
        in run("links", "disable", "--provider", pid, "--merchant", "x", code=1).output
    )
    assert "no provider" in run("links", "disable", "--provider", "prv_nope", code=1).output


def test_the_blocklist(run: Run, opened: PayHub, provider: dict[str, Any]) -> None:
    run("links", "domain", "set", "--environment", "sandbox", "sbx.links.example.com")
    scope = opened.provider(opened.authenticate(provider["apiKey"]))
    scope.short_links.create(LinkInput("https://www.bad-deals.com/x"))
    out = run("links", "blocklist", "add", "Bad-Deals.com", "--reason", "phishing").stdout
    assert "bad-deals.com blocked; 1 existing link(s) revoked" in out
    assert "already blocked; 0 existing" in run("links", "blocklist", "add", "bad-deals.com").stdout
    listed = run("links", "blocklist", "list").stdout
    assert "bad-deals.com" in listed
    assert "phishing" in listed
    entries = json.loads(run("links", "blocklist", "list", "--json").stdout)
    assert [(e["domain"], e["reason"]) for e in entries] == [("bad-deals.com", "phishing")]
    assert "unblocked" in run("links", "blocklist", "remove", "bad-deals.com").stdout
    assert "was not blocked" in run("links", "blocklist", "remove", "bad-deals.com").stdout
    assert "no blocked domains" in run("links", "blocklist", "list").stdout
    run("links", "blocklist", "add", "127.0.0.1", code=2)


def test_usage_shows_api_requests_per_merchant(
    run: Run, opened: PayHub, provider: dict[str, Any]
) -> None:
    run("links", "domain", "set", "--environment", "sandbox", "sbx.links.example.com")
    assert "no short-link API requests" in run("links", "usage").stdout
    scope = opened.provider(opened.authenticate(provider["apiKey"]))
    for _ in range(3):
        scope.short_links.create(
            LinkInput("https://shop.example.com/", merchant_reference="shop-1")
        )
    scope.short_links.list(merchant_reference="shop-2")
    table = run("links", "usage").stdout
    lines = table.splitlines()
    assert lines[0].split() == [
        "PROVIDER",
        "MERCHANT",
        "TODAY",
        "LAST",
        "7",
        "DAYS",
        "LAST",
        "30",
        "DAYS",
    ]
    assert [line.split()[1:] for line in lines[2:]] == [
        ["shop-1", "3", "3", "3"],
        ["shop-2", "1", "1", "1"],
    ]
    as_json = json.loads(
        run("links", "usage", "--json", "--provider", provider["providerId"]).stdout
    )
    assert as_json[0] == {
        "providerId": provider["providerId"],
        "merchantReference": "shop-1",
        "today": 3,
        "last7Days": 3,
        "days": 30,
        "lastDays": 3,
    }
    assert json.loads(run("links", "usage", "--json", "--provider", "prv_other").stdout) == []
