"""Braintree: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.braintree.adapter import BraintreeGateway
from payhub.adapters.gateways.braintree.catalog import CATALOG
from payhub.adapters.gateways.braintree.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, BraintreeGateway, PAGE)
