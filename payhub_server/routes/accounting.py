"""The online accounting system (QuickBooks Online) under M: status, sync now, sync
customers, disconnect, a run's progress; and Intuit's change notifications.

Connecting is not here: it needs Intuit's own sign-in screen, so it is done only in the
admin portal (``payhub_server/portal/accounting_pages.py``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import anyio
import msgspec
from litestar import Controller, Request, Response, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import FromPath

from payhub.domain.accounting import SyncRun
from payhub.domain.errors import ValidationError
from payhub.services.accounting import ConnectionView
from payhub_server.deps import MERCHANT_KEY_OK, PUBLIC, Hub, Tenant, api_get, api_post


class SyncRunOut(msgspec.Struct, rename="camel"):
    """One sync: `status` is `queued`, `running`, `succeeded` or `failed`; `step` says what
    it is doing while it runs; `counts` by what happened (e.g. `customersCreated`,
    `invoicesCreated`, `paymentsCreated`, `invoicesMarkedPaid`, `invoicesRefused`,
    `errors`); `errors` the first 20, each naming its object."""

    run_id: str
    kind: str
    status: str
    step: str | None
    counts: dict[str, int]
    errors: list[str]
    created_at_utc: datetime
    started_at_utc: datetime | None
    finished_at_utc: datetime | None

    @classmethod
    def of(cls, r: SyncRun) -> SyncRunOut:
        return cls(
            r.id,
            r.kind.value,
            r.status.value,
            r.step,
            dict(sorted(r.counts.items())),
            list(r.errors),
            r.created_at,
            r.started_at,
            r.finished_at,
        )


class AccountingOnlineOut(msgspec.Struct, rename="camel"):
    """`status`: `notConnected`, `connected` or `disconnected` (then `statusReason` says
    why: disconnected by the merchant, or the grant revoked or expired in QuickBooks).
    `environment`: `sandbox` or `production`. `lastSync`: the last finished run;
    `currentSync`: one queued or running."""

    system: str
    status: str
    status_reason: str | None
    company_id: str | None
    company_name: str | None
    environment: str | None
    home_currency: str | None
    automatic_sales_tax: bool
    connected_at_utc: datetime | None
    disconnected_at_utc: datetime | None
    last_sync: SyncRunOut | None
    current_sync: SyncRunOut | None

    @classmethod
    def of(cls, v: ConnectionView) -> AccountingOnlineOut:
        c = v.connection
        return cls(
            system=c.system.value,
            status=c.status.value,
            status_reason=c.status_reason,
            company_id=c.company_id,
            company_name=c.company_name,
            environment=c.environment.value if c.environment else None,
            home_currency=c.home_currency,
            automatic_sales_tax=c.automatic_sales_tax,
            connected_at_utc=c.connected_at,
            disconnected_at_utc=c.disconnected_at,
            last_sync=SyncRunOut.of(v.last_run) if v.last_run else None,
            current_sync=SyncRunOut.of(v.current_run) if v.current_run else None,
        )


def _accepted(ref: str, run: SyncRun) -> Response[SyncRunOut]:
    location = f"/api/merchant-accounts/{ref}/accounting-online/sync-runs/{run.id}"
    return Response(SyncRunOut.of(run), status_code=202, headers={"Location": location})


_ACCEPTED = {202: ResponseSpec(SyncRunOut, description="Queued: the run, to follow at Location")}


class AccountingOnlineController(Controller):
    path = "/api/merchant-accounts/{ref:str}/accounting-online"
    tags = ["Accounting"]

    @api_get("/", opt=MERCHANT_KEY_OK, summary="Online accounting status")
    def accounting_online(self, ref: FromPath[str], tenant: Tenant) -> AccountingOnlineOut:
        """Company, environment, status and the last sync result. Connecting is done only in
        the admin portal (QuickBooks' own sign-in)."""
        return AccountingOnlineOut.of(tenant.merchant(ref).accounting_online.status())

    @api_post(
        "/sync-now",
        opt=MERCHANT_KEY_OK,
        summary="Sync with the online accounting system now",
        status_code=202,
        responses=_ACCEPTED,
    )
    def accounting_online_sync_now(
        self, ref: FromPath[str], tenant: Tenant
    ) -> Response[SyncRunOut]:
        """Push every unsynced customer, product item and invoice (with its payments), then
        pull invoice status (paid there becomes Paid here). Runs in the background: 202 with
        the run; 409 when not connected. A run already waiting is returned, not doubled."""
        return _accepted(ref, tenant.merchant(ref).accounting_online.sync_now())

    @api_post(
        "/sync-customers",
        opt=MERCHANT_KEY_OK,
        summary="Sync customers with the online accounting system",
        status_code=202,
        responses=_ACCEPTED,
    )
    def accounting_online_sync_customers(
        self, ref: FromPath[str], tenant: Tenant
    ) -> Response[SyncRunOut]:
        """Pull the company's customers in (matched to payhub customers on `accountNumber`
        when present, else imported), then push unsynced ones. 202 with the run."""
        return _accepted(ref, tenant.merchant(ref).accounting_online.sync_customers())

    @api_post(
        "/disconnect",
        opt=MERCHANT_KEY_OK,
        summary="Disconnect the online accounting system",
        status_code=200,
    )
    def accounting_online_disconnect(
        self, ref: FromPath[str], tenant: Tenant
    ) -> AccountingOnlineOut:
        """Syncing stops at once; the grant is forgotten. Reconnect in the portal any time."""
        return AccountingOnlineOut.of(tenant.merchant(ref).accounting_online.disconnect())

    @api_get("/sync-runs/{run_id:str}", opt=MERCHANT_KEY_OK, summary="A sync run's progress")
    def accounting_online_run(
        self, ref: FromPath[str], run_id: FromPath[str], tenant: Tenant
    ) -> SyncRunOut:
        return SyncRunOut.of(tenant.merchant(ref).accounting_online.run(run_id))


def _companies(body: bytes) -> list[str]:
    """The realm ids a notification names: Intuit's ``eventNotifications[].realmId``, or
    ``intuitaccountid`` of the CloudEvents form."""
    try:
        data: Any = json.loads(body)
    except (ValueError, RecursionError) as e:
        raise ValidationError.for_field("body", "not a JSON notification") from e
    found: list[str] = []
    if isinstance(data, dict):
        for note in data.get("eventNotifications") or []:
            if isinstance(note, dict) and note.get("realmId"):
                found.append(str(note["realmId"]))
    elif isinstance(data, list):
        for event in data:
            if isinstance(event, dict) and event.get("intuitaccountid"):
                found.append(str(event["intuitaccountid"]))
    return found


@post(
    "/webhooks/intuit",
    opt=PUBLIC,
    tags=["Accounting"],
    summary="QuickBooks Online change notifications (Intuit webhook)",
    status_code=200,
    security=[],
    responses={200: ResponseSpec(None, description="Accepted", examples=[Example(value="")])},
)
async def intuit_notifications(request: Request[Any, Any, Any], hub: Hub) -> Response[bytes]:
    """Point the Intuit app's webhook here. Verified with `intuit-signature` (base64
    HMAC-SHA256 of the body keyed with the app's verifier token; 404 otherwise); each
    connected company named gets a pull of invoice status in the background."""
    body = await request.body()
    signature = request.headers.get("intuit-signature")
    await anyio.to_thread.run_sync(
        hub.accounting_webhooks.receive, body, signature, _companies(body)
    )
    return Response(b"", status_code=200)
