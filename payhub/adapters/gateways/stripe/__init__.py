"""Stripe: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.stripe.adapter import StripeGateway
from payhub.adapters.gateways.stripe.catalog import CATALOG
from payhub.adapters.gateways.stripe.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, StripeGateway, PAGE)
