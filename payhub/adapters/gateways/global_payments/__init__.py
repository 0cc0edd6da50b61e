"""Global Payments (GP-API): its adapter, its catalog row, its pay-page driver (page.py,
fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.global_payments.adapter import GlobalPaymentsGateway
from payhub.adapters.gateways.global_payments.catalog import CATALOG
from payhub.adapters.gateways.global_payments.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, GlobalPaymentsGateway, PAGE)
