"""Invoices of a merchant: create, read, list, send, embed and void (``M/invoices``).

Amounts are decimal JSON numbers in the invoice's ``currency``. There is no PUT or PATCH:
every field is fixed at creation (spec: Invoice rule 1).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter

from payhub.domain.invoices import (
    AllowedMethods,
    LineInput,
    PartialPaymentMode,
)
from payhub.services.invoices import InvoiceInput, pay_url
from payhub.wire.invoices import InvoiceOut
from payhub_server.deps import MERCHANT_KEY_OK, Hub, Tenant, api_get, api_post
from payhub_server.encoding import encode
from payhub_server.idempotency import run_idempotent
from payhub_server.routes.addresses import AddressIn
from payhub_server.routes.paging import LIMIT, page_out
from payhub_server.routes.wire import Page

IDEMPOTENCY = HeaderParameter(
    name="Idempotency-Key", required=False, description="Retry safely: one outcome per key (24 h)"
)
INVOICE_CURSOR = Annotated[
    str | None,
    QueryParameter(name="startingAfter", description="`nextCursor` (an invoiceNumber)"),
]


class LineItemIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """`quantity` more than 0 (up to 4 decimals); `unitPrice` 0 or more at the currency's
    precision; `isTaxable` defaults to true; `productId` must be one of the merchant's."""

    description: str
    quantity: Decimal
    unit_price: Decimal
    is_taxable: bool = True
    product_id: str | None = None


class InvoiceCreate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    line_items: list[LineItemIn]
    gateway: str
    customer_id: str | None = None
    currency: str = "USD"
    tax_rate_id: str | None = None
    tax_rate_percent: Decimal | None = None
    due_date: date | None = None
    allowed_payment_methods: Literal["CardOnly", "BankAccountOnly", "Both"] = "Both"
    partial_payment_mode: Literal["Disabled", "CustomerChoice", "FixedDeposit"] = "Disabled"
    required_deposit_amount: Decimal | None = None
    authorize_only: bool = False
    bill_to_address: AddressIn | None = None
    ship_to_address: AddressIn | None = None
    location_id: str | None = None
    description: str | None = None

    def to_domain(self) -> InvoiceInput:
        return InvoiceInput(
            line_items=[
                LineInput(x.description, x.quantity, x.unit_price, x.is_taxable, x.product_id)
                for x in self.line_items
            ],
            gateway=self.gateway,
            customer_id=self.customer_id,
            currency=self.currency,
            tax_rate_id=self.tax_rate_id,
            tax_rate_percent=self.tax_rate_percent,
            due_date=self.due_date,
            allowed_payment_methods=AllowedMethods(self.allowed_payment_methods),
            partial_payment_mode=PartialPaymentMode(self.partial_payment_mode),
            required_deposit_amount=self.required_deposit_amount,
            authorize_only=self.authorize_only,
            bill_to_address=self.bill_to_address.to_domain() if self.bill_to_address else None,
            ship_to_address=self.ship_to_address.to_domain() if self.ship_to_address else None,
            location_id=self.location_id,
            description=self.description,
        )


class SendOut(msgspec.Struct, rename="camel"):
    """`payUrl` is returned whether or not an email was queued (`emailQueued`)."""

    invoice_number: str
    status: str
    pay_url: str
    email_queued: bool
    invoice: InvoiceOut


class EmbedOut(msgspec.Struct, rename="camel"):
    embed_url: str
    iframe_html: str
    resize_script_html: str
    allowed_origins: list[str]


class InvoiceController(Controller):
    path = "/api/merchant-accounts/{ref:str}/invoices"
    tags = ["Invoices"]

    @api_post(
        "/",
        opt=MERCHANT_KEY_OK,
        summary="Create an invoice",
        status_code=201,
        responses={201: ResponseSpec(InvoiceOut, description="Created (as Draft)")},
    )
    def create_invoice(
        self,
        ref: FromPath[str],
        data: JSONBody[InvoiceCreate],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        hub: Hub,
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """Every field is fixed here (no edits later). `invoiceNumber` in the response is the
        number assigned. 400: a gateway without hosted checkout; `BankAccountOnly`/`Both` on
        a gateway without ACH; `requiredDepositAmount` not between 0 and the total (or sent
        without `FixedDeposit`); `authorizeOnly` with a partial mode or an unsupporting
        gateway; both `taxRateId` and `taxRatePercent`; an unknown `customerId`, `productId`
        or `locationId`; an address field too long."""
        invoices = tenant.merchant(ref).invoices
        given = data.to_domain()

        def work() -> Response[bytes]:
            invoice = invoices.create(given)
            body = encode(InvoiceOut.of(invoice, invoices.pay_url(invoice)))
            return Response(body, status_code=201, media_type="application/json")

        return run_idempotent(hub, tenant.caller, request, data, work)

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List invoices")
    def list_invoices(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        hub: Hub,
        limit: LIMIT = 50,
        starting_after: INVOICE_CURSOR = None,
        customer_id: Annotated[
            str | None, QueryParameter(name="customerId", description="Only this customer's")
        ] = None,
    ) -> Page[InvoiceOut]:
        """Newest first; `nextCursor` is the last invoiceNumber of the page."""
        page = tenant.merchant(ref).invoices.list(customer_id, starting_after, limit)
        return page_out(page, lambda i: InvoiceOut.of(i, pay_url(hub.deps, i.pay_token)))

    @api_get("/{invoice_number:str}", opt=MERCHANT_KEY_OK, summary="Get an invoice")
    def get_invoice(
        self, ref: FromPath[str], invoice_number: FromPath[str], tenant: Tenant
    ) -> InvoiceOut:
        """Status, lines with their tax, totals, amount paid and due, and every payment:
        the authoritative way to confirm a payment."""
        invoices = tenant.merchant(ref).invoices
        invoice = invoices.get(invoice_number)
        return InvoiceOut.of(invoice, invoices.pay_url(invoice))

    @api_post(
        "/{invoice_number:str}/send",
        opt=MERCHANT_KEY_OK,
        summary="Send an invoice",
        status_code=200,
    )
    def send_invoice(
        self, ref: FromPath[str], invoice_number: FromPath[str], tenant: Tenant
    ) -> SendOut:
        """Draft becomes Sent and the pay link is emailed when email is configured; sending
        a Sent invoice again re-sends it. 409 for Paid and Void invoices."""
        invoices = tenant.merchant(ref).invoices
        sent = invoices.send(invoice_number)
        return SendOut(
            sent.invoice.number,
            sent.invoice.status.value,
            sent.pay_url,
            sent.email_queued,
            InvoiceOut.of(sent.invoice, sent.pay_url),
        )

    @api_post(
        "/{invoice_number:str}/embed",
        opt=MERCHANT_KEY_OK,
        summary="Get the embed code of an invoice",
        status_code=200,
    )
    def embed_invoice(
        self, ref: FromPath[str], invoice_number: FromPath[str], tenant: Tenant
    ) -> EmbedOut:
        """No body; changes nothing; repeatable. 409 for a Draft or Void invoice, or when
        the merchant has no allowed website."""
        found = tenant.merchant(ref).invoices.embed(invoice_number)
        return EmbedOut(
            found.embed_url,
            found.iframe_html,
            found.resize_script_html,
            list(found.allowed_origins),
        )

    @api_post(
        "/{invoice_number:str}/void",
        opt=MERCHANT_KEY_OK,
        summary="Void an invoice",
        status_code=200,
    )
    def void_invoice(
        self, ref: FromPath[str], invoice_number: FromPath[str], tenant: Tenant
    ) -> InvoiceOut:
        """Any state but Paid becomes Void (409 once Paid, or while a payment is in flight).
        Partial payments stay recorded; refund them through the payments API."""
        invoices = tenant.merchant(ref).invoices
        invoice = invoices.void(invoice_number)
        return InvoiceOut.of(invoice, invoices.pay_url(invoice))
