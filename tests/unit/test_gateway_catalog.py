"""The gateway catalog: 21 real gateways, a sandbox-only simulator, ACH modes as documented."""

from __future__ import annotations

from collections import Counter

import pytest

from payhub import Environment, NotFound
from payhub.domain.gateways import BankAccountVaulting
from tests.gateways.catalog_rows import CATALOG, GATEWAYS, SIMULATOR, gateway

gateways_for = CATALOG.for_environment


def test_there_are_exactly_21_real_gateways_with_unique_names() -> None:
    names = [g.name for g in GATEWAYS]
    assert len(names) == 21
    assert len(set(names)) == 21
    assert SIMULATOR.name not in names
    assert all(not g.sandbox_only for g in GATEWAYS)


def test_names_are_lower_case_url_safe_slugs() -> None:
    for g in (*GATEWAYS, SIMULATOR):
        assert g.name == g.name.strip().lower()
        assert g.name.replace("-", "").isalnum(), g.name
        assert g.display_name


def test_the_simulator_exists_only_in_sandbox() -> None:
    sandbox = gateways_for(Environment.SANDBOX)
    production = gateways_for(Environment.PRODUCTION)
    assert [g.name for g in sandbox] == [*(g.name for g in GATEWAYS), "simulator"]
    assert [g.name for g in production] == [g.name for g in GATEWAYS]
    assert SIMULATOR.sandbox_only
    assert gateway("simulator", Environment.SANDBOX) is SIMULATOR
    with pytest.raises(NotFound):
        gateway("simulator", Environment.PRODUCTION)


def test_ach_vaulting_modes_among_the_real_gateways() -> None:
    modes = Counter(g.bank_account_vaulting for g in GATEWAYS)
    assert modes[BankAccountVaulting.VAULT_FIRST] == 1
    assert modes[BankAccountVaulting.FRESH_ONLY] == 1
    assert modes[BankAccountVaulting.FRESH_AND_VAULT] == 3
    assert modes[BankAccountVaulting.NONE] == 21 - 5
    assert [g.ach for g in GATEWAYS].count(True) == 5
    for g in GATEWAYS:
        assert g.ach == (g.bank_account_vaulting is not BankAccountVaulting.NONE)


def test_credential_field_names_are_unique_per_gateway_and_never_the_secret() -> None:
    for g in (*GATEWAYS, SIMULATOR):
        assert len(set(g.credential_fields)) == len(g.credential_fields), g.name
        assert "apiSecret" not in g.credential_fields


@pytest.mark.parametrize("spelling", ["stripe", "Stripe", " STRIPE "])
def test_lookup_ignores_case_and_whitespace(spelling: str) -> None:
    assert gateway(spelling, Environment.PRODUCTION).name == "stripe"


@pytest.mark.parametrize("name", ["", "nope", "stripe2", "../stripe"])
def test_unknown_gateways_are_not_found(name: str) -> None:
    for environment in Environment:
        with pytest.raises(NotFound):
            gateway(name, environment)
