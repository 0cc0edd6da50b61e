"""Portal-side schedule commands: a merchant's scheduled payments and schedule requests as
tables (``--json`` for scripts, with the API's field names).

``--merchant REF`` names the merchant (``--provider`` only when the reference is ambiguous).
"""

from __future__ import annotations

import click

from payhub.domain.schedules import ScheduledPayment, ScheduleRequest, ScheduleStatus
from payhub.hub import PayHub
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import money, when
from payhub_cli.portal import customer_names, merchant_scope, page_options, shop_options, show


@cli.group()
def schedules() -> None:
    """A merchant's scheduled payments and schedule requests."""


def _cadence(s: ScheduledPayment | ScheduleRequest) -> str:
    return s.cadence.value if s.cadence is not None else "OneTime"


@schedules.command("list")
@shop_options
@page_options
@click.option("--customer", "customer_id", help="Only this customer's schedules.")
@click.option(
    "--status",
    type=click.Choice([s.value for s in ScheduleStatus]),
    help="Only schedules in this state.",
)
@json_option
@with_hub
def schedules_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    customer_id: str | None,
    status: str | None,
    as_json: bool,
) -> None:
    """List scheduled payments, newest first: amount per run, cadence, state, next run and
    consecutive failures (3 make a schedule Failed)."""
    scope = merchant_scope(hub, provider_id, reference)
    page = scope.scheduled_payments.list(after, limit, customer_id, status)
    names = customer_names(scope, (s.customer_id for s in page.items))

    def record(s: ScheduledPayment) -> dict[str, object]:
        return {
            "scheduledPaymentId": s.id,
            "customerId": s.customer_id,
            "customerName": names.get(s.customer_id),
            "amount": str(s.charge_amount().amount),
            "currency": s.currency,
            "cadence": _cadence(s),
            "status": s.status.value,
            "nextRunAtUtc": s.next_run_at.isoformat() if s.next_run_at else None,
            "failureCount": s.failures,
            "chargeCount": s.charges,
            "invoiceNumber": s.invoice_number,
        }

    show(
        page,
        as_json,
        ["ID", "CUSTOMER", "AMOUNT", "CADENCE", "STATUS", "NEXT RUN", "FAILURES", "CHARGES"],
        lambda s: [
            s.id,
            names.get(s.customer_id, s.customer_id),
            money(s.charge_amount()),
            _cadence(s),
            s.status.value,
            when(s.next_run_at),
            s.failures,
            s.charges,
        ],
        record,
        "no scheduled payments",
    )


@schedules.command("requests")
@shop_options
@page_options
@json_option
@with_hub
def schedules_requests(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    as_json: bool,
) -> None:
    """List schedule requests, newest first, with the approval link of those still Pending
    (to send again) and the schedule an approved one created."""
    scope = merchant_scope(hub, provider_id, reference)
    requests = scope.schedule_requests
    page = requests.list(after, limit)
    names = customer_names(scope, (r.customer_id for r in page.items))

    def link(r: ScheduleRequest) -> str | None:
        return requests.url(r) if r.status.value == "Pending" else None

    def record(r: ScheduleRequest) -> dict[str, object]:
        return {
            "scheduleRequestId": r.id,
            "customerId": r.customer_id,
            "customerName": names.get(r.customer_id),
            "amount": str(r.charge_amount().amount),
            "currency": r.currency,
            "cadence": _cadence(r),
            "startAtUtc": r.first_run_at.isoformat(),
            "status": r.status.value,
            "invoiceNumber": r.invoice_number,
            "scheduledPaymentId": r.schedule_id,
            "approvalUrl": requests.url(r),
        }

    show(
        page,
        as_json,
        [
            "ID",
            "CUSTOMER",
            "AMOUNT",
            "CADENCE",
            "FIRST RUN",
            "INVOICE",
            "STATUS",
            "SCHEDULE",
            "LINK",
        ],
        lambda r: [
            r.id,
            names.get(r.customer_id, r.customer_id),
            money(r.charge_amount()),
            _cadence(r),
            when(r.first_run_at),
            r.invoice_number or "-",
            r.status.value,
            r.schedule_id or "-",
            link(r) or "-",
        ],
        record,
        "no schedule requests",
    )
