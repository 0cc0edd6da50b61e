"""Checkout.com: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.checkout_com.adapter import CheckoutComGateway
from payhub.adapters.gateways.checkout_com.catalog import CATALOG
from payhub.adapters.gateways.checkout_com.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, CheckoutComGateway, PAGE)
