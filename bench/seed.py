"""Rows for the growth run (issue 16 item 7): ``--scale N`` seeds N units before a suite's
server starts, through the services (so every row is one the API could have made), under the
benchmark's provider. One unit: 20 merchants, and per merchant 10 customers, 10 invoices,
10 short links and 50 charges (200 customers, invoices and links, 1,000 transactions)."""

from __future__ import annotations

from decimal import Decimal

from payhub import PayHub
from payhub.domain.customers import CustomerName
from payhub.domain.environments import Environment
from payhub.domain.invoices import LineInput
from payhub.services.customers import CustomerInput
from payhub.services.invoices import InvoiceInput
from payhub.services.links import LinkInput
from payhub.services.merchants import CredentialInput
from payhub.services.payments import ChargeInput

MERCHANTS = 20
PER_MERCHANT = 10
CHARGES = 50
LINK_HOST = "links.bench.test"


def seed(db_url: str, key_file: str, api_key: str, scale: int) -> dict[str, int]:
    """Seed ``scale`` units into ``db_url``; the counts made."""
    made = {"merchants": 0, "customers": 0, "invoices": 0, "links": 0, "transactions": 0}
    hub = PayHub.open(db_url, key_file=key_file)
    try:
        tenant = hub.provider(hub.authenticate(api_key))
        hub.link_admin.set_domain(Environment.SANDBOX, LINK_HOST)  # the links suite's host
        for m in range(MERCHANTS * scale):
            ref = f"seed-{m}"
            tenant.merchants.create(ref, f"Seeded {m}")
            shop = tenant.merchant(ref)
            shop.credentials.put("simulator", CredentialInput("sim", "Sandbox", True))
            made["merchants"] += 1
            for c in range(PER_MERCHANT):
                customer = shop.customers.create(
                    CustomerInput(CustomerName(first="Ada", last=f"Seed{c}"))
                )
                shop.invoices.create(
                    InvoiceInput(
                        [LineInput("Tea", Decimal(1), Decimal("4.50"))],
                        "simulator",
                        customer_id=customer.id,
                    )
                )
                tenant.short_links.create(
                    LinkInput(f"https://shop.example.com/{m}/{c}", merchant_reference=ref)
                )
                made["customers"] += 1
                made["invoices"] += 1
                made["links"] += 1
            charge = ChargeInput(Decimal("9.99"), "USD", "simulator", token="sim_card_ok")
            for _ in range(CHARGES):
                shop.payments.charge(charge)
                made["transactions"] += 1
    finally:
        hub.close()
    return made
