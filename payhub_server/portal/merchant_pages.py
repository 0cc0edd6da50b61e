"""The merchant's pages of this module set: Settings, Customers, Invoices, Payments, Keys."""

from __future__ import annotations

from typing import Any

from payhub_server.portal.customer_pages import CUSTOMER_HANDLERS
from payhub_server.portal.invoice_pages import INVOICE_HANDLERS
from payhub_server.portal.key_pages import KEY_HANDLERS
from payhub_server.portal.payment_pages import PAYMENT_HANDLERS
from payhub_server.portal.settings_pages import SETTINGS_HANDLERS

MERCHANT_HANDLERS: list[Any] = [
    *SETTINGS_HANDLERS,
    *CUSTOMER_HANDLERS,
    *INVOICE_HANDLERS,
    *PAYMENT_HANDLERS,
    *KEY_HANDLERS,
]
