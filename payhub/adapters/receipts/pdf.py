"""The receipt as a PDF, drawn with fpdf2 (pure Python, no system libraries needed).

The caller hands over a ``ReceiptDocument`` of already formatted strings (the same ones the
receipt page shows), so the PDF and the page cannot disagree about an amount or a rounding.
Text is drawn with DejaVu Sans when the system has it (any script a merchant or payer name
may use); otherwise with the PDF core font Helvetica, which covers Latin-1 only, and any
other character is replaced by ``?``.
"""

from __future__ import annotations

from pathlib import Path

import attrs
from fpdf import FPDF
from fpdf.enums import XPos, YPos

_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
_PAGE_WIDTH_MM = 180.0  # A4 minus 15 mm margins


@attrs.frozen
class ReceiptLine:
    description: str
    quantity: str
    unit_price: str
    amount: str
    note: str = ""  # e.g. "not taxed"


@attrs.frozen
class ReceiptPayment:
    date: str
    method: str
    status: str
    amount: str


@attrs.frozen
class ReceiptDocument:
    title: str
    merchant_name: str
    invoice_number: str
    status: str
    facts: tuple[tuple[str, str], ...]  # ("Due date", "2025-07-01"), ...
    bill_to: tuple[str, ...]
    ship_to: tuple[str, ...]
    lines: tuple[ReceiptLine, ...]
    totals: tuple[tuple[str, str], ...]  # ("Subtotal", "$10.00"), ..., ("Amount due", ...)
    payments: tuple[ReceiptPayment, ...]
    footer: str = ""


def _fonts(pdf: FPDF) -> tuple[str, bool]:
    """The family to draw with, and whether it covers Unicode."""
    for folder in _FONT_DIRS:
        regular, bold = folder / "DejaVuSans.ttf", folder / "DejaVuSans-Bold.ttf"
        if regular.is_file() and bold.is_file():
            pdf.add_font("DejaVu", "", str(regular))
            pdf.add_font("DejaVu", "B", str(bold))
            return "DejaVu", True
    return "Helvetica", False


class _Writer:
    def __init__(self) -> None:
        self.pdf = FPDF(orientation="P", unit="mm", format="A4")
        self.pdf.set_margins(15, 15, 15)
        self.pdf.set_auto_page_break(auto=True, margin=15)
        self.family, self.unicode = _fonts(self.pdf)
        self.pdf.add_page()

    def text(self, value: str) -> str:
        if self.unicode:
            return value
        return value.encode("latin-1", errors="replace").decode("latin-1")

    def font(self, size: float, bold: bool = False) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", size)

    def line(self, value: str, size: float = 10, bold: bool = False, height: float = 5.5) -> None:
        self.font(size, bold)
        self.pdf.multi_cell(
            _PAGE_WIDTH_MM, height, self.text(value), new_x=XPos.LMARGIN, new_y=YPos.NEXT
        )

    def row(self, cells: list[tuple[str, float, str]], bold: bool = False) -> None:
        """One table row: (text, width in mm, align L/R)."""
        self.font(9.5, bold)
        y = self.pdf.get_y()
        x = self.pdf.l_margin
        bottom = y
        for value, width, align in cells:
            self.pdf.set_xy(x, y)
            self.pdf.multi_cell(
                width, 5.5, self.text(value), align=align, new_x=XPos.RIGHT, new_y=YPos.TOP
            )
            bottom = max(bottom, self.pdf.get_y() + 5.5)
            x += width
        self.pdf.set_xy(self.pdf.l_margin, bottom)

    def rule(self) -> None:
        y = self.pdf.get_y() + 1
        self.pdf.set_draw_color(160, 160, 160)
        self.pdf.line(self.pdf.l_margin, y, self.pdf.l_margin + _PAGE_WIDTH_MM, y)
        self.pdf.set_y(y + 2)

    def gap(self, mm: float = 4) -> None:
        self.pdf.ln(mm)


def render_receipt_pdf(doc: ReceiptDocument) -> bytes:
    """The receipt as PDF bytes: merchant, number, addresses, lines, tax, totals, payments."""
    w = _Writer()
    w.pdf.set_title(w.text(f"{doc.title} {doc.invoice_number}"))
    w.pdf.set_author(w.text(doc.merchant_name))
    w.pdf.set_creator("payhub")
    w.line(doc.merchant_name, size=16, bold=True, height=8)
    w.line(f"{doc.title} {doc.invoice_number}", size=13, bold=True, height=7)
    w.line(f"Status: {doc.status}")
    for label, value in doc.facts:
        w.line(f"{label}: {value}")
    if doc.bill_to or doc.ship_to:
        w.gap()
        half = _PAGE_WIDTH_MM / 2
        w.row([("Bill to" if doc.bill_to else "", half, "L"),
               ("Ship to" if doc.ship_to else "", half, "L")], bold=True)  # fmt: skip
        w.row([("\n".join(doc.bill_to), half, "L"), ("\n".join(doc.ship_to), half, "L")])
    w.gap()
    widths = (86.0, 22.0, 36.0, 36.0)
    w.row(
        [("Description", widths[0], "L"), ("Qty", widths[1], "R"),
         ("Unit price", widths[2], "R"), ("Amount", widths[3], "R")],
        bold=True,
    )  # fmt: skip
    w.rule()
    for item in doc.lines:
        description = f"{item.description} ({item.note})" if item.note else item.description
        w.row(
            [(description, widths[0], "L"), (item.quantity, widths[1], "R"),
             (item.unit_price, widths[2], "R"), (item.amount, widths[3], "R")]
        )  # fmt: skip
    w.rule()
    for label, value in doc.totals:
        w.row([(label, widths[0] + widths[1] + widths[2], "R"), (value, widths[3], "R")])
    w.gap(6)
    w.line("Payments", size=12, bold=True, height=7)
    if doc.payments:
        pw = (46.0, 62.0, 36.0, 36.0)
        w.row(
            [("Date", pw[0], "L"), ("Method", pw[1], "L"), ("Status", pw[2], "L"),
             ("Amount", pw[3], "R")],
            bold=True,
        )  # fmt: skip
        w.rule()
        for p in doc.payments:
            w.row(
                [(p.date, pw[0], "L"), (p.method, pw[1], "L"), (p.status, pw[2], "L"),
                 (p.amount, pw[3], "R")]
            )  # fmt: skip
    else:
        w.line("No payments yet.")
    if doc.footer:
        w.gap(6)
        w.line(doc.footer, size=8.5)
    return bytes(w.pdf.output())
