"""The QuickBooks Online adapter against an Intuit **sandbox** company. Runs only with
credentials.

Set ``QBO_SANDBOX_CLIENT_ID`` and ``QBO_SANDBOX_CLIENT_SECRET`` (the app's development
keys), ``QBO_SANDBOX_REALM_ID`` (the sandbox company) and ``QBO_SANDBOX_REFRESH_TOKEN`` (from
the OAuth Playground). Refresh tokens rotate: after a run the token you set may be spent, so
take a fresh one from the Playground for the next. Only the sandbox host is ever called.
Each run creates one customer named ``payhub remote-<uuid>``.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime

import httpx
import pytest

from payhub.adapters.accounting.qbo import QboConfig, QuickBooksOnline
from payhub.domain.accounting import (
    AccountingSystem,
    LinkKind,
    OutgoingCustomer,
    RemoteEnvironment,
    RemoteLink,
    request_id_for,
)
from payhub.ports import AccountingSession

ENV = {
    k: os.environ.get(f"QBO_SANDBOX_{k}", "")
    for k in ("CLIENT_ID", "CLIENT_SECRET", "REALM_ID", "REFRESH_TOKEN")
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(ENV.values()), reason="QBO_SANDBOX_* credentials are not set"),
]


def test_refresh_read_the_company_and_create_a_customer_idempotently() -> None:
    config = QboConfig(ENV["CLIENT_ID"], ENV["CLIENT_SECRET"], "https://localhost/callback")
    qbo = QuickBooksOnline(config, httpx.Client(timeout=30))
    now = datetime.now(UTC)
    grant = qbo.refresh(RemoteEnvironment.SANDBOX, ENV["REFRESH_TOKEN"], now)
    session = AccountingSession(ENV["REALM_ID"], RemoteEnvironment.SANDBOX, grant.access_token)
    company = qbo.company(session)
    assert company.company_id == ENV["REALM_ID"]
    assert len(company.home_currency) == 3
    local = f"remote-{uuid.uuid4()}"
    link = RemoteLink(
        "mer_remote",
        AccountingSystem.ONLINE,
        LinkKind.CUSTOMER,
        local,
        request_id_for("mer_remote", LinkKind.CUSTOMER, local),
        now,
        now,
    )
    customer = OutgoingCustomer(f"payhub {local}", None, None, None, None, None, "R-1", None)
    first = qbo.push_customer(session, customer, link)
    again = qbo.push_customer(session, customer, link)  # the same requestid: the same record
    assert again.remote_id == first.remote_id
    found = [c for c in qbo.customers(session) if c.remote_id == first.remote_id]
    assert found[0].account_number == "R-1"
