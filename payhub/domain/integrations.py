"""The integrations a merchant may connect (spec: "Integrations"), as the portal presents
them, and what a connection reports. Connecting needs the other system's own sign-in screen,
so it is done only in the portal; the connect flows arrive with each integration's issue.

Names follow the API's paths (``M/accounting-online``, ``M/crm/{crm}`` …). The four further
CRMs' identifiers are not in the spec; these are the ones the reference notes recommend
(``/work/shared/reference/integrations.md``, section 6).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import attrs


class IntegrationKind(StrEnum):
    ACCOUNTING = "Accounting"
    CRM = "CRM"
    STOREFRONT = "Online store"


class ConnectHow(StrEnum):
    SIGN_IN = "sign-in"  # the other system's own sign-in (OAuth)
    CONNECTOR = "connector"  # a connector program set up from the portal (desktop accounting)
    STORE_APP = "store-app"  # an app installed from the store's control panel
    STORE_KEY = "store-key"  # the store's address and an API key


@attrs.frozen
class Integration:
    key: str  # the portal path's last part, e.g. "accounting-online", "crm-pipedrive"
    api_path: str  # under M, e.g. "accounting-online", "crm/pipedrive"
    title: str
    kind: IntegrationKind
    connect: ConnectHow
    connecting: str  # what connecting will do, in the merchant's words
    syncs: tuple[str, ...]  # what moves once connected


CRM_IDS = ("salesforce", "pipedrive", "zoho", "dynamics")

_CRM_SYNC = (
    "Each customer becomes an account-type record in the CRM.",
    "A sent invoice becomes a deal (or opportunity).",
    "A fully paid invoice moves its deal to the won stage; a deal won in the CRM marks the"
    " invoice paid.",
)

INTEGRATIONS: tuple[Integration, ...] = (
    Integration(
        "accounting-online",
        "accounting-online",
        "Online accounting system",
        IntegrationKind.ACCOUNTING,
        ConnectHow.SIGN_IN,
        "You sign in to your accounting company on its own page and allow payhub in; you come"
        " back here connected to that company (sandbox or production, as this portal).",
        (
            "Customers and invoices are pushed when a customer is created, an invoice sent or"
            " paid; a payment is recorded against the matching accounting invoice.",
            "Invoices marked paid in the accounting system become Paid here.",
            "Products can be imported and pushed; tax rates are imported.",
        ),
    ),
    Integration(
        "accounting-desktop",
        "accounting-desktop",
        "Desktop accounting system",
        IntegrationKind.ACCOUNTING,
        ConnectHow.CONNECTOR,
        "You download a connector file here and add it to the connector program on the"
        " computer that runs your accounting software; it then calls payhub on a schedule.",
        (
            "Customers, invoices and payments are pushed; products sync with items; tax rates"
            " are read from sales-tax items; paid status comes back.",
            "Names are shortened to 31 characters on the way out.",
        ),
    ),
    Integration(
        "crm-primary",
        "crm-primary",
        "Primary CRM",
        IntegrationKind.CRM,
        ConnectHow.SIGN_IN,
        "You sign in to the CRM on its own page and allow payhub in.",
        _CRM_SYNC,
    ),
    *(
        Integration(
            f"crm-{crm}",
            f"crm/{crm}",
            f"CRM: {crm}",
            IntegrationKind.CRM,
            ConnectHow.SIGN_IN,
            "You sign in to the CRM on its own page and allow payhub in. Each CRM is a separate"
            " add-on; several may be connected at once.",
            _CRM_SYNC,
        )
        for crm in CRM_IDS
    ),
    Integration(
        "storefront-a",
        "storefront-a",
        "Online store A",
        IntegrationKind.STOREFRONT,
        ConnectHow.STORE_APP,
        "You install payhub's app from your store's control panel; the store then appears here"
        " as connected.",
        (
            "Orders the store counts as paid come in as a customer and an already Paid invoice;"
            " nothing is written back to the store.",
        ),
    ),
    Integration(
        "storefront-b",
        "storefront-b",
        "Online store B",
        IntegrationKind.STOREFRONT,
        ConnectHow.STORE_KEY,
        "You enter your store's address and an API key made in the store's settings.",
        (
            "Orders the store counts as paid come in as a customer and an already Paid invoice;"
            " nothing is written back to the store.",
        ),
    ),
)

BY_KEY = {i.key: i for i in INTEGRATIONS}


@attrs.frozen
class LastSync:
    at: datetime
    ok: bool
    summary: str


@attrs.frozen
class IntegrationStatus:
    """What an integration reports: connected or not, to what, and the last sync's result."""

    integration: Integration
    connected: bool = False
    account: str | None = None  # the company, CRM account or store connected
    environment: str | None = None  # accounting: the company's environment
    last_sync: LastSync | None = None
