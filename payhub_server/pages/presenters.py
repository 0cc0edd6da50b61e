"""From the invoice core's pay-page view to what the templates, the PDF and the script show.

Every amount is formatted here once, so the page, the receipt and its PDF always agree.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from payhub.adapters.receipts.pdf import ReceiptDocument, ReceiptLine, ReceiptPayment
from payhub.domain.addresses import Address
from payhub.domain.debit_authorizations import AMOUNT, authorization_text
from payhub.domain.environments import Environment
from payhub.domain.invoices import (
    AllowedMethods,
    Invoice,
    InvoicePayment,
    PaymentOptions,
    PaymentSourceKind,
)
from payhub.domain.money import Money, format_money, minor_unit_exponent
from payhub.domain.payments import MethodType
from payhub.services.invoices import PaymentFacts, PayPageView
from payhub_server.pages.drivers import Fields, VendorHosts, fields_for
from payhub_server.pages.formats import local_date, local_time
from payhub_server.pages.model import (
    Choice,
    HostedFields,
    LineRow,
    PageModel,
    PaymentRow,
    PayOptions,
    masked_phone,
)

_STATUS_WORDS = {"Captured": "Paid", "Submitted": "Submitted (bank transfer)",
                 "Authorized": "Reserved", "Settled": "Paid", "External": "Paid"}  # fmt: skip


def money(m: Money) -> str:
    """``$1,234.50`` for dollars, ``EUR 1,234.50`` for other currencies: the one money format
    (``payhub.domain.money.format_money``), shared with the CLI's listings."""
    return format_money(m)


def plain(m: Money) -> str:
    """The amount as the form posts it: ``1234.50``."""
    return f"{m.amount:.{minor_unit_exponent(m.currency)}f}"


def quantity(q: Decimal) -> str:
    return format(q.normalize(), "f")


def percent(p: Decimal) -> str:
    return format(p.normalize(), "f")


def address_lines(address: Address | None) -> tuple[str, ...]:
    """``1 Main St`` / ``Austin, TX 78701`` / ``US``: blank parts left out."""
    if address is None:
        return ()
    region = " ".join(x for x in (address.state, address.postal_code) if x)
    place = ", ".join(x for x in (address.city, region) if x)
    return tuple(x for x in (address.line1, address.line2, place, address.country) if x)


_OUTSIDE = {
    PaymentSourceKind.ACCOUNTING_ONLINE: "Recorded in the merchant's accounting",
    PaymentSourceKind.ACCOUNTING_DESKTOP: "Recorded in the merchant's accounting",
    PaymentSourceKind.CRM: "Recorded by the merchant",
    PaymentSourceKind.STOREFRONT: "Paid at the merchant's online store",
}


def _method(payment: InvoicePayment, facts: PaymentFacts | None = None) -> str:
    """``Visa ending in 4242``, ``Bank account ending in 6789``; ``Card`` when the gateway
    did not say which."""
    if payment.method_type is None:  # settled outside payhub
        return _OUTSIDE.get(payment.source, "Paid to the merchant")
    last4 = facts.last4 if facts else None
    if payment.method_type is MethodType.BANK_ACCOUNT:
        return f"Bank account ending in {last4}" if last4 else "Bank account"
    brand = (facts.brand if facts else None) or ""
    name = _BRANDS.get(brand.lower(), brand.replace("_", " ").title()) or "Card"
    return f"{name} ending in {last4}" if last4 else name


_BRANDS = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express",
           "american_express": "American Express", "discover": "Discover", "jcb": "JCB",
           "diners": "Diners Club", "unionpay": "UnionPay"}  # fmt: skip


def payment_row(
    payment: InvoicePayment,
    zone: str = "UTC",
    facts: PaymentFacts | None = None,
    receipt_number: str = "",
) -> PaymentRow:
    return PaymentRow(
        date=local_time(payment.created_at, zone),
        method=_method(payment, facts),
        status=_STATUS_WORDS.get(payment.status, payment.status),
        amount=money(payment.amount),
        submitted=payment.status == "Submitted",
        receipt_number=receipt_number,
        reference=(facts.gateway_reference or "") if facts else (payment.external_reference or ""),
    )


def receipt_number(invoice_number: str, position: int) -> str:
    """A payment's receipt number: its invoice's number and its place among the invoice's
    payments (``INV-000042-R2``): unique, stable (payments are never removed) and findable."""
    return f"{invoice_number}-R{position}"


def _rows(view: PayPageView) -> tuple[PaymentRow, ...]:
    invoice = view.invoice
    return tuple(
        payment_row(p, view.time_zone, view.payment_facts.get(p.id),
                    receipt_number(invoice.number, n))
        for n, p in enumerate(invoice.payments, 1)
    )  # fmt: skip


def _options(invoice: Invoice, options: PaymentOptions) -> PayOptions | None:
    if not options.can_pay:
        return None
    choices: list[Choice] = []
    due = invoice.amount_due
    for amount in options.fixed:
        if amount == due:
            label = (
                "Full balance"
                if invoice.amount_paid.amount > 0 or options.minimum
                else ("Full amount")
            )
            key = "balance"
        else:
            label, key = "Deposit", "deposit"
        choices.append(Choice(key=key, label=label, amount=plain(amount), display=money(amount)))
    choices.sort(key=lambda c: c.key != "deposit")  # the deposit first: it is what is asked
    if options.minimum is not None and options.maximum is not None:
        return PayOptions(
            choices=tuple(choices),
            minimum=plain(options.minimum),
            maximum=plain(options.maximum),
            maximum_display=money(options.maximum),
        )
    return PayOptions(choices=tuple(choices))


def present(view: PayPageView, pay_token: str, public: dict[str, str] | None = None) -> PageModel:
    """``public``: the merchant's public client values for the invoice's gateway (the
    publishable key...); without them a real gateway's fields cannot be rendered."""
    invoice = view.invoice
    methods = invoice.allowed_methods
    sandbox = view.environment is Environment.SANDBOX
    driver = fields_for(view.gateway_name, sandbox, public or {})
    lines = tuple(
        LineRow(
            description=line.description,
            quantity=quantity(line.quantity),
            unit_price=money(line.unit_price),
            amount=money(line.amount),
            taxable=line.is_taxable,
        )
        for line in invoice.lines
    )
    has_tax = any(line.is_taxable for line in invoice.lines) and invoice.tax_percent > 0
    return PageModel(
        pay_token=pay_token,
        merchant_name=view.merchant_name,
        sandbox=view.environment is Environment.SANDBOX,
        invoice_number=invoice.number,
        status=invoice.status.value,
        currency=invoice.currency,
        due_date=local_date(invoice.due_date) if invoice.due_date else None,
        lines=lines,
        subtotal=money(invoice.subtotal),
        tax_label=f"Tax ({percent(invoice.tax_percent)}%)" if has_tax else "Tax",
        tax=money(invoice.tax),
        total=money(invoice.total),
        amount_paid=money(invoice.amount_paid),
        amount_due=money(invoice.amount_due),
        amount_due_plain=plain(invoice.amount_due),
        bill_to=address_lines(invoice.bill_to),
        ship_to=address_lines(invoice.ship_to),
        payments=_rows(view),
        options=_options(invoice, view.options),
        fields=_fields(view, methods, driver),
        authorize_only=invoice.authorize_only,
        sms_offer=view.sms_consent_offered and not view.sms_consent_given,
        sms_recorded=view.sms_consent_given,
        in_progress=view.payment_in_progress,
        allowed_origins=tuple(view.allowed_origins),
        sms_phone_last4=view.customer_phone_last4,
        today=local_date(view.today) if view.today else "",
        merchant_contact=view.merchant_contact,
        debit_words=_debit_words(view),
        merchant_logo=view.merchant_logo,
    )


def _debit_words(view: PayPageView) -> tuple[str, str]:
    """The authorization's words before and after the amount (the page's script writes it)."""
    text = authorization_text(
        view.merchant_name, AMOUNT, local_date(view.today) if view.today else "today",
        view.invoice.number,
    )  # fmt: skip
    before, _, after = text.partition(AMOUNT)
    return before, after


def _fields(view: PayPageView, methods: AllowedMethods, driver: Fields | None) -> HostedFields:
    """The methods offered are those the invoice allows AND the driver can collect; a page
    whose driver collects none of them says online payment is not available."""
    card = methods is not AllowedMethods.BANK_ACCOUNT_ONLY and (driver is None or driver.card)
    bank = methods is not AllowedMethods.CARD_ONLY and (driver is None or driver.bank)
    usable = driver is not None and (card or bank)
    return HostedFields(
        gateway=view.gateway_name,
        name=view.hosted_fields,
        script_url=driver.module if usable and driver else None,
        card=card,
        bank=bank,
        vendor=driver.hosts if usable and driver else VendorHosts(),
        config=dict(driver.config) if usable and driver else {},
    )


def urls_for(pay_token: str, embedded: bool) -> dict[str, str]:
    base = f"/pay/{pay_token}"
    return {
        "page": f"/embed/{pay_token}" if embedded else base,
        "pay": base,
        "receipt": f"{base}/receipt",
        "receipt_pdf": f"{base}/receipt.pdf",
        "payments": f"{base}/payments",
        "session": f"{base}/session",
        "sms_consent": f"{base}/sms-consent",
    }


def vendor_hosts(page: PageModel) -> VendorHosts:
    """The vendor origins the page's CSP must allow: only where the form is shown."""
    return page.fields.vendor if page.payable and page.fields.script_url else VendorHosts()


def page_config(
    page: PageModel, *, embedded: bool, attempt_token: str, sms_token: str
) -> dict[str, Any]:
    """The settings the page's script reads (a JSON block; the CSP forbids inline script)."""
    urls = urls_for(page.pay_token, embedded)
    return {
        "invoiceNumber": page.invoice_number,
        "status": page.status,
        "currency": page.currency,
        "minorDigits": minor_unit_exponent(page.currency),
        "authorizeOnly": page.authorize_only,
        "embedded": embedded,
        "allowedOrigins": list(page.allowed_origins) if embedded else [],
        "attemptToken": attempt_token,
        "smsToken": sms_token,
        "hostedFields": {
            "gateway": page.fields.gateway,
            "card": page.fields.card,
            "bank": page.fields.bank,
            "config": page.fields.config,
        },
        "urls": {
            "page": urls["page"],
            "payments": urls["payments"],
            "session": urls["session"],
            "smsConsent": urls["sms_consent"],
        },
    }


def paid_row(view: PayPageView, payment_id: str | None) -> PaymentRow | None:
    """The payment just made, for the confirmation shown after the page reloads."""
    if not payment_id:
        return None
    for payment, row in zip(view.invoice.payments, _rows(view), strict=True):
        if payment.id == payment_id:
            return row
    return None


def receipt_facts(page: PageModel) -> tuple[tuple[str, str], ...]:
    """The receipt's heading facts: the latest payment's receipt number, date (merchant's
    zone), method and gateway reference, then the due date."""
    facts: list[tuple[str, str]] = []
    if page.payments:
        last = page.payments[-1]
        facts.append(("Receipt number", last.receipt_number))
        facts.append(("Payment date", last.date))
        facts.append(("Paid by", last.method))
        if last.reference:
            facts.append(("Gateway reference", last.reference))
    if page.due_date:
        facts.append(("Due date", page.due_date))
    return tuple(facts)


def receipt_document(page: PageModel) -> ReceiptDocument:
    return ReceiptDocument(
        title="Receipt for invoice",
        merchant_name=page.merchant_name,
        merchant_contact=page.merchant_contact,
        invoice_number=page.invoice_number,
        status=page.status_label,
        facts=receipt_facts(page),
        bill_to=page.bill_to,
        ship_to=page.ship_to,
        lines=tuple(
            ReceiptLine(
                line.description,
                line.quantity,
                line.unit_price,
                line.amount,
                "" if line.taxable else "not taxed",
            )
            for line in page.lines
        ),
        totals=(
            ("Subtotal", page.subtotal),
            (page.tax_label, page.tax),
            ("Total", page.total),
            ("Reserved" if page.authorize_only else "Paid", page.amount_paid),
            ("Amount due", page.amount_due),
        ),
        payments=tuple(
            ReceiptPayment(p.date, p.method, p.status, p.amount, p.reference, p.receipt_number)
            for p in page.payments
        ),
        footer=("Sandbox: test mode, no real money moved. " if page.sandbox else "")
        + "Issued by payhub on behalf of "
        + page.merchant_name
        + ".",
    )


def payment_result(outcome: Any) -> dict[str, Any]:
    """The JSON the page's script gets after a successful payment (also the `paid` message)."""
    view, payment = outcome.view, outcome.payment
    invoice = view.invoice
    return {
        "invoiceNumber": invoice.number,
        "status": invoice.status.value,
        "currency": invoice.currency,
        "amountPaid": invoice.amount_paid.amount,
        "amountDue": invoice.amount_due.amount,
        "payment": {
            "id": payment.id,
            "amount": payment.amount.amount,
            "methodType": payment.method_type.value,
            "status": payment.status,
        },
    }


def consent_result(state: Any) -> dict[str, Any]:
    return {
        "consent": state.consent,
        # Masked: the post answers whoever holds the link, not only the customer.
        "phone": masked_phone(state.phone[-4:] if state.phone else None),
        "source": state.source.value if state.source else None,
        "recordedAtUtc": state.recorded_at.isoformat() if state.recorded_at else None,
    }
