"""Webhook endpoints (``/api/webhook-endpoints``): where a provider receives signed events.

A provider key manages every endpoint of its provider and may limit one to a merchant
(``merchantReference``); a merchant key manages only endpoints limited to its merchant, and
what it creates is limited to it. The signing secret (``whsec_…``) is in the answer to create
and to rotate-secret only. See docs/webhooks.md for signatures, retries and the event types.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter

from payhub.domain.webhooks import DeliveryAttempt
from payhub.services.webhooks import EndpointInput, EndpointPatch, EndpointView
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_delete, api_get, api_patch, api_post
from payhub_server.routes.paging import CURSOR, LIMIT, page_out
from payhub_server.routes.wire import Page


class EndpointCreate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    url: str
    event_types: list[str]
    description: str | None = None
    merchant_reference: str | None = None
    alert_email: str | None = None


class EndpointUpdate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    url: str | None = None
    event_types: list[str] | None = None
    description: str | None = None
    alert_email: str | None = None
    enabled: bool | None = None


class RotateSecret(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    overlap_hours: float | None = None


class Resend(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    event_id: str


class EndpointOut(msgspec.Struct, rename="camel"):
    """`secret` is present only in the answers to create and rotate-secret: keep it then.
    `previousSecretExpiresAtUtc`: until then the old secret signs too (after a rotation).
    `disabledReason`: why payhub disabled it (failing for days) or that its owner did."""

    endpoint_id: str
    url: str
    event_types: list[str]
    description: str | None
    merchant_reference: str | None
    alert_email: str | None
    enabled: bool
    disabled_reason: str | None
    failing_since_utc: datetime | None
    previous_secret_expires_at_utc: datetime | None
    created_at_utc: datetime
    updated_at_utc: datetime
    secret: str | None = None

    @classmethod
    def of(cls, v: EndpointView) -> EndpointOut:
        e = v.endpoint
        return cls(
            endpoint_id=e.id,
            url=e.url,
            event_types=list(e.event_types),
            description=e.description,
            merchant_reference=v.merchant_reference,
            alert_email=e.alert_email,
            enabled=e.enabled,
            disabled_reason=e.disabled_reason,
            failing_since_utc=e.failing_since,
            previous_secret_expires_at_utc=e.previous_secret_expires_at,
            created_at_utc=e.created_at,
            updated_at_utc=e.updated_at,
            secret=v.secret,
        )


class AttemptOut(msgspec.Struct, rename="camel"):
    """One POST to the endpoint. `statusCode` is absent when no answer came (`error` says
    why: refused address, connection error, timeout). `outcome`: delivered, retrying (at
    `nextAttemptAtUtc`), failed (the last of eight attempts) or cancelled."""

    attempt_id: str
    delivery_id: str
    event_id: str
    event_type: str
    attempt: int
    started_at_utc: datetime
    duration_ms: int
    status_code: int | None
    error: str | None
    outcome: str
    next_attempt_at_utc: datetime | None

    @classmethod
    def of(cls, a: DeliveryAttempt) -> AttemptOut:
        return cls(
            attempt_id=a.id,
            delivery_id=a.delivery_id,
            event_id=a.event_id,
            event_type=a.event_type,
            attempt=a.attempt,
            started_at_utc=a.started_at,
            duration_ms=a.duration_ms,
            status_code=a.status_code,
            error=a.error,
            outcome=a.outcome,
            next_attempt_at_utc=a.next_attempt_at,
        )


class ResendOut(msgspec.Struct, rename="camel"):
    """`status` is pending (its first attempt is due now) or waiting (behind an earlier
    delivery of the same object to this endpoint)."""

    delivery_id: str
    event_id: str
    endpoint_id: str
    status: str


_ENDPOINT = {200: ResponseSpec(EndpointOut, description="The endpoint")}


class WebhookEndpointController(Controller):
    path = "/api/webhook-endpoints"
    tags = ["Webhooks"]

    @api_post(
        "/",
        opt=MERCHANT_KEY_OK,
        summary="Create a webhook endpoint",
        status_code=201,
        responses={201: ResponseSpec(EndpointOut, description="Created, with its secret")},
    )
    def create_webhook_endpoint(
        self, data: JSONBody[EndpointCreate], tenant: Tenant
    ) -> EndpointOut:
        """`url`: a public `https://` address (the short-link target rules: a host name, no
        IP address, no internal names). `eventTypes`: names like `invoice.paid`, or `["*"]`
        for every event. The answer carries the signing `secret` (`whsec_…`) this once."""
        view = tenant.webhooks.create(
            EndpointInput(
                url=data.url,
                event_types=data.event_types,
                description=data.description,
                merchant_reference=data.merchant_reference,
                alert_email=data.alert_email,
            )
        )
        return EndpointOut.of(view)

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List webhook endpoints")
    def list_webhook_endpoints(
        self,
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        merchant_reference: Annotated[
            str | None,
            QueryParameter(name="merchantReference", description="Only this merchant's"),
        ] = None,
    ) -> Page[EndpointOut]:
        """Oldest first, never with secrets. A merchant key sees only its merchant's."""
        page = tenant.webhooks.list(merchant_reference, starting_after, limit)
        return page_out(page, EndpointOut.of)

    @api_get(
        "/{endpoint_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Get a webhook endpoint",
        responses=_ENDPOINT,
    )
    def get_webhook_endpoint(self, endpoint_id: FromPath[str], tenant: Tenant) -> EndpointOut:
        return EndpointOut.of(tenant.webhooks.get(endpoint_id))

    @api_patch(
        "/{endpoint_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Update, disable or enable a webhook endpoint",
        responses=_ENDPOINT,
    )
    def update_webhook_endpoint(
        self, endpoint_id: FromPath[str], data: JSONBody[EndpointUpdate], tenant: Tenant
    ) -> EndpointOut:
        """Only the fields given change. `"enabled": false` stops deliveries (those on their
        way are cancelled); `true` resumes with new events and clears the failing streak."""
        view = tenant.webhooks.update(
            endpoint_id,
            EndpointPatch(
                url=data.url,
                event_types=data.event_types,
                description=data.description,
                alert_email=data.alert_email,
                enabled=data.enabled,
            ),
        )
        return EndpointOut.of(view)

    @api_delete(
        "/{endpoint_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Delete a webhook endpoint",
        status_code=204,
    )
    def delete_webhook_endpoint(self, endpoint_id: FromPath[str], tenant: Tenant) -> None:
        """Deliveries on their way are cancelled; its delivery log goes with it."""
        tenant.webhooks.delete(endpoint_id)

    @api_post(
        "/{endpoint_id:str}/rotate-secret",
        opt=MERCHANT_KEY_OK,
        summary="Rotate a webhook endpoint's signing secret",
        status_code=200,
        responses=_ENDPOINT,
    )
    def rotate_webhook_secret(
        self, endpoint_id: FromPath[str], tenant: Tenant, data: JSONBody[RotateSecret]
    ) -> EndpointOut:
        """A new `secret`, shown this once. For `overlapHours` (default 24, at most 168, 0
        for none) deliveries carry two signatures, the new secret's and the old one's."""
        return EndpointOut.of(tenant.webhooks.rotate_secret(endpoint_id, data.overlap_hours))

    @api_get(
        "/{endpoint_id:str}/deliveries",
        opt=MERCHANT_KEY_OK,
        summary="The delivery log of a webhook endpoint",
    )
    def list_webhook_deliveries(
        self,
        endpoint_id: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
    ) -> Page[AttemptOut]:
        """Every attempt, newest first: status code, duration, error; never bodies."""
        return page_out(tenant.webhooks.attempts(endpoint_id, starting_after, limit), AttemptOut.of)

    @api_post(
        "/{endpoint_id:str}/resend",
        opt=MERCHANT_KEY_OK,
        summary="Send one event to a webhook endpoint again",
        status_code=202,
        responses={202: ResponseSpec(ResendOut, description="Queued")},
    )
    def resend_webhook_event(
        self, endpoint_id: FromPath[str], data: JSONBody[Resend], tenant: Tenant
    ) -> ResendOut:
        """A new delivery of an event this provider was sent before (same `webhook-id`, so
        receivers that already have it can ignore it). 409 when the endpoint is disabled."""
        d = tenant.webhooks.resend(endpoint_id, data.event_id)
        return ResendOut(d.id, d.event_id, d.endpoint_id, d.status.value)
