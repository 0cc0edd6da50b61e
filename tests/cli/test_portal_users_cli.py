"""``payhub portal users``: the operator creates, lists, invites and disables portal users."""

from __future__ import annotations

import json
import re

from payhub import PayHub
from tests.cli.test_cli import Run, as_json, create_provider, db_url, key_file, opened, run  # noqa: F401  # noqa: F401

URL = re.compile(r"https?://\S+/portal/invite/[A-Za-z0-9_-]+")


def test_create_invite_list_disable(run: Run, opened: PayHub) -> None:  # noqa: F811
    provider = create_provider(run)
    opened.provider(opened.as_provider(provider["providerId"])).merchants.create("acme-42", "Acme")
    made = run(
        "portal", "users", "create", "--email", "Ann@Example.com", "--name", "Ann Owner",
        "--role", "owner", "--merchant", "acme-42", "--invite",
    )  # fmt: skip
    assert "created pus_" in made.output
    assert "NOT emailed (no SMTP configured)" in made.output
    link = URL.search(made.output)
    assert link
    # The printed link is a working invitation.
    invited = opened.portal.invitation(link.group(0).rsplit("/", 1)[-1])
    assert invited.email == "ann@example.com"
    assert invited.merchant_reference == "acme-42"
    again = run("portal", "users", "invite", "ann@example.com", "--json")
    assert as_json(again)["url"] != link.group(0)
    run("portal", "users", "create", "--email", "op@example.com", "--name", "Olive",
        "--role", "operator", "--environment", "production")  # fmt: skip
    listed = as_json(run("portal", "users", "list", "--json"))
    assert [(u["email"], u["role"], u["environment"], u["status"]) for u in listed] == [
        ("ann@example.com", "owner", "Sandbox", "invited"),
        ("op@example.com", "operator", "Production", "invited"),
    ]
    only = as_json(run("portal", "users", "list", "--merchant", "acme-42", "--json"))
    assert [u["email"] for u in only] == ["ann@example.com"]
    run("portal", "users", "disable", "ann@example.com")
    listed = as_json(run("portal", "users", "list", "--json"))
    assert listed[0]["status"] == "disabled"
    table = run("portal", "users", "list").output
    assert "ann@example.com" in table
    assert "disabled" in table


def test_bad_input_is_a_clean_error(run: Run) -> None:  # noqa: F811
    create_provider(run)
    merchantless = run(
        "portal", "users", "create", "--email", "a@example.com", "--name", "A", "--role", "staff",
        code=2,
    )  # fmt: skip
    assert "merchant" in merchantless.output
    assert "Traceback" not in merchantless.output
    nobody = run(
        "portal", "users", "create", "--email", "a@example.com", "--name", "A", "--role", "owner",
        "--merchant", "nope", code=1,
    )  # fmt: skip
    assert "no merchant" in nobody.output
    bad_email = run(
        "portal", "users", "create", "--email", "not-an-email", "--name", "A",
        "--role", "operator", code=2,
    )  # fmt: skip
    assert "email" in bad_email.output
    missing = run("portal", "users", "disable", "nobody@example.com", code=1)
    assert "no portal user" in missing.output
    assert json.loads(run("portal", "users", "list", "--json").output) == []
