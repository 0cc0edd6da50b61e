"""The payer's authorization of a one-time bank debit (ACH, NACHA's WEB entry), and its words.

A debit from a consumer's account needs the consumer's authorization, readily identifiable as
one, that names the amount, the date and how to revoke it (NACHA Operating Rules, WEB debit
entries; the gateways' own ACH terms say the same: Stripe's ACH mandate, Square's ACH
authorization, Braintree's ``achMandate``). The pay page shows these words above a box the payer
must tick before a bank payment is sent; the same words, with the amount charged, are recorded
with the payment (``DebitAuthorization``), and gateways that take the acceptance (Stripe's
``mandate_data``) get the time, address and browser of the payer who ticked it.
"""

from __future__ import annotations

from datetime import date, datetime

import attrs

AMOUNT = "{amount}"  # where the page writes the amount the payer picks


def display_date(day: date) -> str:
    """``January 5, 2026``: the pages' one date format (``payhub_server/pages/formats.py``)."""
    return f"{day.strftime('%B')} {day.day}, {day.year}"


def authorization_text(merchant_name: str, amount: str, date: str, invoice_number: str) -> str:
    """The words the payer accepts: ``amount`` and ``date`` already formatted for display
    (``$106.60``, ``January 5, 2026``); ``AMOUNT`` leaves a place for the page's script."""
    return (
        f"I authorize {merchant_name} to debit the bank account I entered above once, for"
        f" {amount}, on or after {date}, to pay invoice {invoice_number}. The payment is"
        " submitted today and takes 3 to 5 business days to complete. I can revoke this"
        f" authorization by contacting {merchant_name} before the debit is made."
    )


@attrs.frozen
class DebitAuthorization:
    """A payer's acceptance of ``text`` on the pay page, as payhub saw it."""

    text: str
    accepted_at: datetime  # UTC
    ip_address: str | None = None  # the address the accepting request came from
    user_agent: str | None = None

    def __attrs_post_init__(self) -> None:
        if not self.text.strip():
            raise ValueError("an authorization needs the words that were accepted")
        if self.accepted_at.utcoffset() is None:
            raise ValueError("accepted_at must be timezone-aware (UTC)")
