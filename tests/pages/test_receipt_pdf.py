"""The receipt PDF, read back with pypdf and pdfplumber (libraries payhub did not write).

Every part of the receipt is in the text, and no two words are ever drawn over each other,
whatever the addresses, descriptions, number of lines or page breaks. The pages are also
rendered to PNG with poppler's pdftoppm into test-artifacts/receipts/ for a person to look at.
"""

from __future__ import annotations

import io
import itertools
import shutil
import subprocess
from pathlib import Path

import pdfplumber
import pypdf
import pytest
from fpdf import FPDF

from payhub.adapters.receipts.pdf import (
    ReceiptDocument,
    ReceiptLine,
    ReceiptPayment,
    render_receipt_pdf,
)

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "receipts"  # git-ignored


def text_of(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages)


PAYMENTS = (
    ReceiptPayment("March 14, 2025, 4:26 AM CDT", "Visa ending in 4242", "Paid", "$40.00",
                   "simtxn_1a2b3c4d5e6f", "INV-000042-R1"),
    ReceiptPayment("March 15, 2025, 5:00 AM CDT", "Bank account ending in 6789",
                   "Submitted (bank transfer)", "$46.60", "simtxn_9f8e7d6c5b4a", "INV-000042-R2"),
)  # fmt: skip


def document(
    lines: int = 2,
    merchant: str = "Zoë's Plumbing",
    description: str = "Item {i}",
    bill_to: tuple[str, ...] = ("1 Main Street", "Austin, TX 78701", "US"),
    payments: int = 2,
) -> ReceiptDocument:
    return ReceiptDocument(
        title="Receipt for invoice",
        merchant_name=merchant,
        merchant_contact=("12 Commerce Street, Austin, TX 78701", "+1 512-555-0100"),
        invoice_number="INV-000042",
        status="Paid",
        facts=(
            ("Receipt number", "INV-000042-R2"),
            ("Payment date", "March 15, 2025, 5:00 AM CDT"),
            ("Paid by", "Bank account ending in 6789"),
            ("Gateway reference", "simtxn_9f8e7d6c5b4a"),
            ("Due date", "April 1, 2025"),
        ),
        bill_to=bill_to,
        ship_to=("9 Site Road", "Round Rock, TX 78664", "US"),
        lines=tuple(
            ReceiptLine(description.format(i=i), "2", "$40.00", "$80.00", "" if i else "not taxed")
            for i in range(lines)
        ),
        totals=(("Subtotal", "$80.00"), ("Tax (8.25%)", "$6.60"), ("Total", "$86.60")),
        payments=tuple(itertools.islice(itertools.cycle(PAYMENTS), payments)),
        footer="Issued by payhub on behalf of Zoë's Plumbing.",
    )


def overlaps(pdf: bytes) -> list[tuple[int, str, str]]:
    """Characters whose boxes intersect (more than a hair), per page, with their words'
    neighbourhood: text over text. Glyphs of one word only touch, so any overlap is a fault."""
    found = []
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        for number, page in enumerate(doc.pages, 1):
            chars = sorted((c for c in page.chars if c["text"].strip()), key=lambda c: c["top"])
            for i, a in enumerate(chars):
                for b in chars[i + 1 :]:
                    if b["top"] >= a["bottom"] - 0.3:
                        break  # sorted by top: no later char reaches down to this one
                    if a["x0"] < b["x1"] - 0.3 and b["x0"] < a["x1"] - 0.3:
                        found.append((number, a["text"], b["text"]))
    return found


def look(pdf: bytes, name: str) -> None:
    """Render every page to PNG (pdftoppm) for a person to look at."""
    if shutil.which("pdftoppm") is None:
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    source = ARTIFACTS / f"{name}.pdf"
    source.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(source), str(ARTIFACTS / name)],
                   check=True, timeout=60)  # fmt: skip


def test_the_pdf_carries_merchant_number_addresses_lines_tax_totals_and_payments() -> None:
    pdf = render_receipt_pdf(document())
    assert pdf.startswith(b"%PDF-")
    text = text_of(pdf)
    for expected in (
        "Zoë's Plumbing", "12 Commerce Street, Austin, TX 78701", "+1 512-555-0100",
        "INV-000042", "Status: Paid", "Receipt number: INV-000042-R2",
        "Payment date: March 15, 2025, 5:00 AM CDT", "Paid by: Bank account ending in 6789",
        "Gateway reference: simtxn_9f8e7d6c5b4a", "Due date: April 1, 2025",
        "Bill to", "1 Main Street", "Austin, TX 78701", "Ship to", "9 Site Road",
        "Item 0 (not taxed)", "Item 1", "$80.00", "Tax (8.25%)", "$6.60", "Total", "$86.60",
        "Visa ending in 4242", "simtxn_1a2b3c4d5e6f", "INV-000042-R1", "$46.60",
    ):  # fmt: skip
        assert expected in text, expected
    assert overlaps(pdf) == []
    look(pdf, "receipt-short")


def test_a_long_invoice_flows_onto_more_pages() -> None:
    pdf = render_receipt_pdf(document(lines=80))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) > 1
    assert "Item 79" in text_of(pdf)
    assert overlaps(pdf) == []


LONG_WORD = "Supercalifragilisticexpialidocious-Plumbing-and-Heating-Incorporated"


@pytest.mark.parametrize(
    ("name", "doc"),
    [
        ("long-addresses", document(bill_to=(
            "Suite 1200, The Very Long Building Name Tower, 1234567 North Extraordinarily Long"
            " Boulevard Extension", LONG_WORD + "-of-Texas-and-beyond", "Austin, TX 78701",
            "US"))),
        ("long-descriptions", document(lines=6, description=(
            "Replacement of the thermostatic mixing valve {i} with labour, parts, call-out,"
            " disposal of the old unit and a full system pressure test " * 3 + LONG_WORD))),
        ("many-lines-and-payments", document(lines=70, payments=40,
                                             description="Line {i}: " + "copper pipe " * 12)),
        ("long-merchant-name", document(merchant=LONG_WORD * 2)),
        ("tall-rows-at-page-breaks", document(lines=30, description="Row {i} " + "word " * 120)),
    ],
)  # fmt: skip
def test_no_word_is_ever_drawn_over_another(name: str, doc: ReceiptDocument) -> None:
    pdf = render_receipt_pdf(doc)
    assert overlaps(pdf) == [], name
    text = text_of(pdf).replace("\n", " ")
    for line in doc.lines[-1:]:
        assert line.description.split()[-1][-10:] in text.replace(" ", "")  # nothing lost
    look(pdf, name)


def test_the_overlap_check_sees_text_over_text() -> None:
    """The check can fail: two words drawn at the same place are reported."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.text(20, 20, "Amount")
    pdf.text(22, 20.5, "Total")
    assert overlaps(bytes(pdf.output())) != []
