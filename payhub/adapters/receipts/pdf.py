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
from fpdf.enums import MethodReturnValue, XPos, YPos

_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
_PAGE_WIDTH_MM = 180.0  # A4 minus 15 mm margins
_LINE_MM = 5.0  # one line of a table row


@attrs.frozen
class ReceiptLine:
    description: str
    quantity: str
    unit_price: str
    amount: str
    note: str = ""  # e.g. "not taxed"


@attrs.frozen
class ReceiptPayment:
    date: str  # in the merchant's time zone
    method: str  # "Visa ending in 4242", "Bank account ending in 6789"
    status: str
    amount: str
    reference: str = ""  # the gateway's reference for the charge
    receipt_number: str = ""  # INV-000042-R1: the invoice number and the payment's position


@attrs.frozen
class ReceiptDocument:
    title: str
    merchant_name: str
    invoice_number: str
    status: str
    facts: tuple[tuple[str, str], ...]  # ("Receipt number", "INV-000042-R2"), ...
    bill_to: tuple[str, ...]
    ship_to: tuple[str, ...]
    lines: tuple[ReceiptLine, ...]
    totals: tuple[tuple[str, str], ...]  # ("Subtotal", "$10.00"), ..., ("Amount due", ...)
    payments: tuple[ReceiptPayment, ...]
    footer: str = ""
    merchant_contact: tuple[str, ...] = ()  # the merchant's address and phone, when known


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

    def row(
        self, cells: list[tuple[str, float, str]], bold: bool = False, size: float = 9.5
    ) -> None:
        """One table row: (text, width in mm, align L/R).

        Every cell is split into lines first and the row is drawn line by line, so cells
        never run into one another: a row that fits on a page is moved whole to the next
        page when it would not fit on this one, and a taller row continues there, line by
        line, each cell in its own column (never text over text)."""
        self.font(size, bold)
        pdf = self.pdf
        split = [self._lines(value, width, align) for value, width, align in cells]
        count = max(len(lines) for lines in split)
        body = pdf.page_break_trigger - pdf.t_margin
        if pdf.get_y() + count * _LINE_MM > pdf.page_break_trigger and count * _LINE_MM <= body:
            pdf.add_page()
        for k in range(count):
            if pdf.get_y() + _LINE_MM > pdf.page_break_trigger:
                pdf.add_page()
            y, x = pdf.get_y(), pdf.l_margin
            for (_, width, align), lines in zip(cells, split, strict=True):
                if k < len(lines) and lines[k]:
                    pdf.set_xy(x, y)
                    pdf.cell(width, _LINE_MM, lines[k], align=align)
                x += width
            pdf.set_xy(pdf.l_margin, y + _LINE_MM)
        pdf.set_y(pdf.get_y() + 0.8)  # a little air between rows

    def _lines(self, value: str, width: float, align: str) -> list[str]:
        """The lines ``value`` takes in a column ``width`` mm wide (fpdf2's own wrapping)."""
        lines = self.pdf.multi_cell(
            width, _LINE_MM, self.text(value), align=align, dry_run=True,
            output=MethodReturnValue.LINES,
        )  # fmt: skip
        assert isinstance(lines, list)
        return [str(x) for x in lines] or [""]

    def rule(self) -> None:
        y = self.pdf.get_y() + 1
        self.pdf.set_draw_color(160, 160, 160)
        self.pdf.line(self.pdf.l_margin, y, self.pdf.l_margin + _PAGE_WIDTH_MM, y)
        self.pdf.set_y(y + 2)

    def gap(self, mm: float = 4) -> None:
        self.pdf.ln(mm)


def render_receipt_pdf(doc: ReceiptDocument) -> bytes:
    """The receipt as PDF bytes: merchant and its contact details, receipt number, invoice,
    payment date, method and gateway reference, addresses, lines, tax, totals, payments."""
    w = _Writer()
    w.pdf.set_title(w.text(f"{doc.title} {doc.invoice_number}"))
    w.pdf.set_author(w.text(doc.merchant_name))
    w.pdf.set_creator("payhub")
    w.line(doc.merchant_name, size=16, bold=True, height=8)
    for contact in doc.merchant_contact:
        w.line(contact, size=9, height=4.5)
    w.gap(2)
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
        pw = (50.0, 56.0, 44.0, 30.0)
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
            ids = [f"Receipt {p.receipt_number}" if p.receipt_number else "",
                   f"Gateway reference {p.reference}" if p.reference else ""]  # fmt: skip
            if any(ids):
                w.row([("    ".join(x for x in ids if x), _PAGE_WIDTH_MM, "L")], size=8.5)
    else:
        w.line("No payments yet.")
    if doc.footer:
        w.gap(6)
        w.line(doc.footer, size=8.5)
    return bytes(w.pdf.output())
