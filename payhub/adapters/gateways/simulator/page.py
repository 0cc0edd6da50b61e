"""The simulator's pay-page driver: no vendor SDK and no vendor hosts; its ``fields.js`` turns
test cards and bank accounts into simulator tokens in the browser, served at its own public
URL (merchants' own pages load it too)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver

MODULE = "/simulator/hosted-fields.js"

PAGE = PayPageDriver(card=True, bank=True, module=MODULE)
