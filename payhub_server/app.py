"""The Litestar application factory: a plain ASGI app any server can run."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, MediaType, get
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme, Tag
from litestar.params import FromPath

from payhub.domain.errors import NotFound, PayHubError
from payhub.hub import PayHub
from payhub_server.cardguard import CardGuard
from payhub_server.decoding import PayHubRequest, check_query_numbers
from payhub_server.deps import DEPENDENCIES, PUBLIC
from payhub_server.encoding import JsonResponse
from payhub_server.openapi_doc import DecimalAsNumber
from payhub_server.pages.routes import PAGE_HANDLERS
from payhub_server.portal.routes import portal_router
from payhub_server.problems import PROBLEM_TYPES, from_domain, from_framework
from payhub_server.reference import (
    CompletedJsonRenderPlugin,
    ReferenceController,
    reference_assets,
)
from payhub_server.requestlog import RequestLog
from payhub_server.routes.accounting import AccountingOnlineController, intuit_notifications
from payhub_server.routes.approvals import APPROVAL_HANDLERS
from payhub_server.routes.categories import CategoryController
from payhub_server.routes.customers import CustomerController
from payhub_server.routes.events import EventController
from payhub_server.routes.gateway_notifications import gateway_notification
from payhub_server.routes.gateways import GatewayController
from payhub_server.routes.invoices import InvoiceController
from payhub_server.routes.links import ShortLinkController
from payhub_server.routes.locations import LocationController
from payhub_server.routes.merchants import MerchantController
from payhub_server.routes.messaging import MessagingController, twilio_inbound, twilio_status
from payhub_server.routes.payments import PaymentController
from payhub_server.routes.portal_sessions import PortalSessionController
from payhub_server.routes.products import ProductController
from payhub_server.routes.redirects import ShortLinkHost
from payhub_server.routes.schedules import ScheduledPaymentController
from payhub_server.routes.simulator import hosted_fields_script
from payhub_server.routes.tax_rates import TaxRateController
from payhub_server.routes.webhooks import WebhookEndpointController

VERSION = "0.1.0"


@get("/healthz", media_type=MediaType.JSON, opt=PUBLIC, sync_to_thread=False, tags=["Service"])
def health() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@get(
    "/problems/{code:str}",
    media_type=MediaType.TEXT,
    opt=PUBLIC,
    sync_to_thread=False,
    include_in_schema=False,
)
def problem_type(code: FromPath[str]) -> Any:
    """The documentation behind each problem ``type`` URI."""
    text = PROBLEM_TYPES.get(code)
    if text is None:
        raise NotFound(f"no problem type '{code}'")
    return f"{code}: {text}\n"


class PayHubApp(Litestar):
    """Litestar with the request log and the raw-card guard around everything, 404s included."""

    def _create_asgi_handler(self) -> Any:
        # Short-link redirects are answered before routing, on their own host only.
        redirects = ShortLinkHost(super()._create_asgi_handler(), lambda: self.state.hub)
        return RequestLog(CardGuard(redirects))


def create_app(hub: PayHub) -> Litestar:
    openapi = OpenAPIConfig(
        title="payhub API",
        version=VERSION,
        description="Payment middleware: one API in front of 21 payment gateways.",
        path="/schema",
        render_plugins=[CompletedJsonRenderPlugin()],
        use_handler_docstrings=True,
        components=Components(
            security_schemes={
                "apiKey": SecurityScheme(
                    type="apiKey", name="X-Api-Key", security_scheme_in="header"
                )
            }
        ),
        security=[{"apiKey": []}],
        tags=[
            Tag(name="Merchant accounts"),
            Tag(name="Gateways"),
            Tag(name="Payments"),
            Tag(name="Customers"),
            Tag(name="Products"),
            Tag(name="Product categories"),
            Tag(name="Tax rates"),
            Tag(name="Locations"),
            Tag(name="Invoices"),
            Tag(name="Short links"),
            Tag(name="Messaging"),
            Tag(name="Scheduled payments"),
            Tag(name="Webhooks"),
            Tag(name="Events"),
            Tag(name="Accounting"),
        ],
    )
    app = PayHubApp(
        route_handlers=[
            health,
            problem_type,
            GatewayController,
            MerchantController,
            PortalSessionController,
            PaymentController,
            CustomerController,
            ProductController,
            CategoryController,
            TaxRateController,
            LocationController,
            InvoiceController,
            EventController,
            ScheduledPaymentController,
            *APPROVAL_HANDLERS,
            ShortLinkController,
            MessagingController,
            WebhookEndpointController,
            AccountingOnlineController,
            intuit_notifications,
            twilio_inbound,
            gateway_notification,
            twilio_status,
            hosted_fields_script,
            *PAGE_HANDLERS,
            portal_router(),
            ReferenceController,
            reference_assets(),
        ],
        dependencies=DEPENDENCIES,
        exception_handlers={
            PayHubError: from_domain,
            HTTPException: from_framework,
            Exception: from_framework,
        },
        response_class=JsonResponse,
        request_class=PayHubRequest,
        before_request=check_query_numbers,
        openapi_config=openapi,
        plugins=[DecimalAsNumber()],
        on_shutdown=[hub.close],
        debug=False,
    )
    app.state.hub = hub
    return app
