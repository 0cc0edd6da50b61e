"""The receipt PDF, read back with pypdf: every part of the receipt is in the text."""

from __future__ import annotations

import io

import pypdf

from payhub.adapters.receipts.pdf import (
    ReceiptDocument,
    ReceiptLine,
    ReceiptPayment,
    render_receipt_pdf,
)


def text_of(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages)


def document(lines: int = 2, merchant: str = "Zoë's Plumbing") -> ReceiptDocument:
    return ReceiptDocument(
        title="Receipt for invoice",
        merchant_name=merchant,
        invoice_number="INV-000042",
        status="Paid",
        facts=(("Due date", "2025-04-01"),),
        bill_to=("1 Main Street", "Austin, TX 78701", "US"),
        ship_to=("9 Site Road", "Round Rock, TX 78664", "US"),
        lines=tuple(
            ReceiptLine(f"Item {i}", "2", "$40.00", "$80.00", "" if i else "not taxed")
            for i in range(lines)
        ),
        totals=(("Subtotal", "$80.00"), ("Tax (8.25%)", "$6.60"), ("Total", "$86.60")),
        payments=(
            ReceiptPayment("2025-03-14 09:26 UTC", "Card", "Paid", "$40.00"),
            ReceiptPayment("2025-03-15 10:00 UTC", "Bank account", "Paid", "$46.60"),
        ),
        footer="Issued by payhub.",
    )


def test_the_pdf_carries_merchant_number_addresses_lines_tax_totals_and_payments() -> None:
    pdf = render_receipt_pdf(document())
    assert pdf.startswith(b"%PDF-")
    text = text_of(pdf)
    for expected in (
        "Zoë's Plumbing", "INV-000042", "Status: Paid", "Due date: 2025-04-01",
        "Bill to", "1 Main Street", "Austin, TX 78701", "Ship to", "9 Site Road",
        "Item 0 (not taxed)", "Item 1", "$80.00", "Tax (8.25%)", "$6.60", "Total", "$86.60",
        "2025-03-14 09:26 UTC", "Bank account", "$46.60",
    ):  # fmt: skip
        assert expected in text, expected


def test_a_long_invoice_flows_onto_more_pages() -> None:
    pdf = render_receipt_pdf(document(lines=80))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) > 1
    assert "Item 79" in text_of(pdf)
