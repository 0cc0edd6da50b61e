"""The merchant's catalog, scheduled-payment, integration and register pages, registered
with the portal's router as one list."""

from __future__ import annotations

from typing import Any

from payhub_server.portal.catalog_pages import CATALOG_HANDLERS
from payhub_server.portal.integration_pages import INTEGRATION_HANDLERS
from payhub_server.portal.register_pages import REGISTER_HANDLERS
from payhub_server.portal.schedule_pages import SCHEDULE_HANDLERS

SHOP_HANDLERS: list[Any] = [
    *CATALOG_HANDLERS,
    *SCHEDULE_HANDLERS,
    *INTEGRATION_HANDLERS,
    *REGISTER_HANDLERS,
]
