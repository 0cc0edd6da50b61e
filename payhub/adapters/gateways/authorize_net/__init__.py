"""Authorize.Net: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.authorize_net.adapter import AuthorizeNetGateway
from payhub.adapters.gateways.authorize_net.catalog import CATALOG
from payhub.adapters.gateways.authorize_net.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, AuthorizeNetGateway, PAGE)
