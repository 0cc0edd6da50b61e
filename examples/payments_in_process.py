"""Use payhub in-process, without the HTTP server: a merchant, a charge, a refund.

.venv/bin/python examples/payments_in_process.py
"""

from __future__ import annotations

import tempfile
from decimal import Decimal
from pathlib import Path

from payhub import PayHub
from payhub.domain.money import Money
from payhub.domain.payments import Declined
from payhub.services.merchants import CredentialInput
from payhub.services.payments import ChargeInput


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        hub = PayHub.open(f"sqlite:///{tmp}/payhub.db", key_file=Path(tmp) / "payhub.key")
        try:
            _, issued = hub.operators.create_provider("Acme Software")
            tenant = hub.provider(hub.authenticate(issued.secret))
            tenant.merchants.create("acme-42", "Acme Plumbing")
            shop = tenant.merchant("acme-42")
            shop.credentials.put("simulator", CredentialInput("sim-secret", "Sandbox", True))

            sale = shop.payments.charge(
                ChargeInput(Decimal("120.00"), "USD", "simulator", token="sim_card_ok"),
                idempotency_key="invoice-1042",
            )
            print("charged:", sale.transaction.id, sale.transaction.status)

            refund = shop.payments.refund(
                "simulator", sale.transaction.id, Money.of(Decimal("20.00"), "USD")
            )
            print("refunded 20:", refund.transaction.status, refund.transaction.refunded)

            try:
                shop.payments.charge(
                    ChargeInput(Decimal("5.00"), "USD", "simulator", token="sim_card_decline")
                )
            except Declined as declined:
                print("declined:", declined.decline_code, "-", declined.gateway_message)
        finally:
            hub.close()


if __name__ == "__main__":
    main()
