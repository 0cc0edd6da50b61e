"""Invoice numbers on both stores: the platform default, merchant formats, time zones,
running out, never repeating, and concurrent creation in separate processes."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.secrets import FernetSecretBox, load_or_create_keys
from payhub.adapters.system import FixedClock
from payhub.domain.errors import ValidationError
from payhub.domain.invoices import LineInput
from payhub.hub import MerchantScope
from payhub.ports import Store
from payhub.services.invoices import InvoiceInput
from tests.conftest import Account
from tests.invoices.conftest import Invoicing
from tests.storage.test_concurrency import run_processes


def scope(shop: Invoicing, ref: str | None = None) -> MerchantScope:
    return shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(
        ref or shop.ref
    )


def test_default_numbers_come_from_one_platform_sequence(
    shop: Invoicing, make_merchant: Any, other_provider: Account
) -> None:
    assert shop.invoice()["invoiceNumber"] == "INV-000001"
    make_merchant(other_provider, "other")
    other = Invoicing(shop.client, shop.hub, other_provider, "other")
    other.ok(other.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    assert other.invoice()["invoiceNumber"] == "INV-000002"
    assert shop.invoice()["invoiceNumber"] == "INV-000003"


def test_a_merchant_format_with_location_code_and_start(shop: Invoicing) -> None:
    shown = scope(shop).invoices.set_numbering("{LOC}-{YYYY}-{####}", 42)
    assert shown.number_format == "{LOC}-{YYYY}-{####}"
    assert shown.example == "LOC1-2025-0042"
    code = shop.created("/locations", {"name": "Uptown", "shortCode": "nyc"})
    plain = shop.created("/locations", {"name": "Depot"})
    with_code = shop.invoice(locationId=code["locationId"])
    assert with_code["invoiceNumber"] == "NYC-2025-0042"
    assert with_code["locationId"] == code["locationId"]
    assert shop.invoice(locationId=plain["locationId"])["invoiceNumber"] == "2025-0043"
    assert shop.invoice()["invoiceNumber"] == "2025-0044"
    assert shop.stored("NYC-2025-0042").location_id == code["locationId"]


def test_date_tokens_use_the_merchant_time_zone(shop: Invoicing, clock: FixedClock) -> None:
    clock.set(datetime(2026, 1, 1, 3, 0, tzinfo=UTC))  # still 2025 in Los Angeles
    scope(shop).invoices.set_numbering("{YY}{MM}-{#####}")
    assert shop.invoice()["invoiceNumber"] == "2601-00001"
    scope(shop).set_time_zone("America/Los_Angeles")
    assert shop.invoice()["invoiceNumber"] == "2512-00002"


def test_refused_formats_change_nothing(shop: Invoicing) -> None:
    invoices = scope(shop).invoices
    for bad in ("INVOICE-{YYYY}-{LOC}-{####}", "X-{####}{##}", "A/{###}", "{Q}-{###}"):
        with pytest.raises(ValidationError):
            invoices.set_numbering(bad)
    with pytest.raises(ValidationError):
        invoices.set_numbering("A-{###}", 1000)
    assert invoices.numbering().number_format is None
    assert shop.invoice()["invoiceNumber"] == "INV-000001"


def test_a_counter_that_runs_out_is_409(shop: Invoicing) -> None:
    scope(shop).invoices.set_numbering("Q{###}", 998)
    assert shop.invoice()["invoiceNumber"] == "Q998"
    assert shop.invoice()["invoiceNumber"] == "Q999"
    refused = shop.post(
        "/invoices",
        {
            "gateway": "simulator",
            "lineItems": [{"description": "x", "quantity": 1, "unitPrice": 1}],
        },
    )
    assert refused.status_code == 409
    assert "ran out of numbers" in refused.json()["detail"]
    assert len(shop.read(lambda uow, m: uow.invoices.list(m))) == 2


def test_numbers_never_repeat_after_a_restart(shop: Invoicing) -> None:
    invoices = scope(shop).invoices
    invoices.set_numbering("A-{###}", 1)
    assert shop.invoice()["invoiceNumber"] == "A-001"
    invoices.set_numbering("A-{###}", 1)  # the same start again: A-001 is skipped
    assert shop.invoice()["invoiceNumber"] == "A-002"
    invoices.set_numbering(None)
    assert shop.invoice()["invoiceNumber"] == "INV-000001"


# --- concurrent creation -------------------------------------------------------------------

PER_CHILD = 6


def _create_many(store: Store, start: Any, key_file: str, provider_id: str) -> list[str]:
    keys, _ = load_or_create_keys(Path(key_file), None)
    hub = PayHub(store, FernetSecretBox(keys))
    numbers = []
    start.wait(60)
    for i in range(PER_CHILD):
        ref = "acme" if i % 2 else "beta"
        invoice = (
            hub.provider(hub.as_provider(provider_id))
            .merchant(ref)
            .invoices.create(
                InvoiceInput(
                    line_items=[LineInput("x", Decimal(1), Decimal(5))], gateway="simulator"
                )
            )
        )
        numbers.append(f"{ref}:{invoice.number}")
    return numbers


def test_concurrent_creation_never_repeats_a_number(
    shop: Invoicing, store_url: str, key_file: Path, make_merchant: Any
) -> None:
    make_merchant(shop.account, "beta")
    beta = Invoicing(shop.client, shop.hub, shop.account, "beta")
    beta.ok(beta.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    scope(shop, "beta").invoices.set_numbering("B{YY}-{####}", 1)
    results = run_processes(
        _create_many, store_url, [(str(key_file), shop.account.provider.id)] * 3
    )
    made = [n for numbers in results for n in numbers]
    assert len(made) == 3 * PER_CHILD
    assert not [n for n, c in Counter(made).items() if c > 1]
    acme = sorted(n.split(":")[1] for n in made if n.startswith("acme:"))
    assert acme == [f"INV-{i:06d}" for i in range(1, len(acme) + 1)]
    beta_numbers = sorted(n.split(":")[1][-4:] for n in made if n.startswith("beta:"))
    assert beta_numbers == [f"{i:04d}" for i in range(1, len(beta_numbers) + 1)]
    stored = shop.read(lambda uow, m: uow.invoices.list(m, limit=200))
    assert sorted(i.number for i in stored) == acme
