"""One table from what gateways say about a decline to payhub's ``DECLINE_CODES``.

Most processors relay the issuer's ISO 8583 response code (field 39) or its text. Gateways
with their own code lists (NMI's 2xx, Forte's U-codes, …) keep a small overlay in the
adapter and fall back to this table; text-only gateways use ``from_text``.
"""

from __future__ import annotations

from collections.abc import Mapping

from payhub.domain.payments import DECLINE_CODES

GENERIC = "generic_decline"

# ISO 8583 field 39 response codes (as Visa/Mastercard processors relay them).
ISO_8583: Mapping[str, str] = {
    "51": "insufficient_funds",  # insufficient funds
    "61": "insufficient_funds",  # exceeds withdrawal amount limit
    "54": "expired_card",  # expired card
    "33": "expired_card",  # expired card, pick up
    "N7": "incorrect_cvc",  # CVV2 mismatch (Visa)
    "82": "incorrect_cvc",  # negative CVV results
    "04": "fraudulent",  # pick up card
    "07": "fraudulent",  # pick up card, special condition
    "34": "fraudulent",  # suspected fraud
    "41": "fraudulent",  # lost card
    "43": "fraudulent",  # stolen card
    "59": "fraudulent",  # suspected fraud
    "06": "processing_error",  # error
    "19": "processing_error",  # re-enter transaction
    "91": "processing_error",  # issuer or switch inoperative
    "92": "processing_error",  # destination cannot be found for routing
    "96": "processing_error",  # system malfunction
}

# Words in a decline text, checked in this order on the upper-cased text.
WORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("CVV", "CVC", "CSC", "CAM", "SECURITY CODE", "(N7)"), "incorrect_cvc"),
    (("EXPIRED", "EXPIRATION", "EXPIRY"), "expired_card"),
    (("INSUFFICIENT", "NSF", "OVER LIMIT", "EXCEEDS", "(51)"), "insufficient_funds"),
    (("PICK UP", "PICKUP", "LOST", "STOLEN", "FRAUD", "RISK"), "fraudulent"),
    (
        (
            "SYSTEM ERROR",
            "PROCESSOR ERROR",
            "PROCESSOR UNAVAILABLE",
            "RE-ENTER",
            "REENTER",
            "RETRY",
            "TRY AGAIN",
        ),
        "processing_error",
    ),
)

assert set(ISO_8583.values()) <= set(DECLINE_CODES)
assert {code for _, code in WORDS} <= set(DECLINE_CODES)


def from_iso8583(code: object, overlay: Mapping[str, str] | None = None) -> str | None:
    """payhub's code for an ISO 8583 (or overlaid processor) code, None when unknown."""
    if not isinstance(code, str):
        return None
    code = code.strip().upper()
    if overlay and code in overlay:
        return overlay[code]
    return ISO_8583.get(code)


Words = tuple[tuple[tuple[str, ...], str], ...]


def from_text(text: object, extra: Words = ()) -> str | None:
    """payhub's code read from a decline text by keyword (a gateway's ``extra`` words
    first), None when nothing matches."""
    if not isinstance(text, str):
        return None
    upper = text.upper()
    return next((code for words, code in (*extra, *WORDS) if any(w in upper for w in words)), None)


def decline_code(
    code: object = None,
    text: object = None,
    *,
    overlay: Mapping[str, str] | None = None,
    extra_words: Words = (),
) -> str:
    """The code first (overlay, then ISO 8583), then the text, else ``generic_decline``."""
    return from_iso8583(code, overlay) or from_text(text, extra_words) or GENERIC
