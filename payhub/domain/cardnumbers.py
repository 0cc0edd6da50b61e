"""Raw card and bank numbers are refused everywhere: how to recognise them.

payhub never accepts a primary account number, a card security code or a bank routing
or account number; cards and bank accounts are collected by the gateway's hosted fields,
which send payhub a token. These checks run on every request body before it is stored
or logged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# 13 to 19 digits, optionally separated by single spaces or dashes.
_DIGIT_RUN = re.compile(r"(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])")

# Field names (compared without case, '_' or '-') that can only mean raw card or bank data.
# ``accountNumber`` alone is the provider's own customer number and stays allowed.
FORBIDDEN_FIELDS = frozenset(
    {
        "cardnumber",
        "pan",
        "primaryaccountnumber",
        "cvv",
        "cvv2",
        "cvc",
        "cvc2",
        "securitycode",
        "cardsecuritycode",
        "routingnumber",
        "abanumber",
        "aba",
        "routing",
        "bankaccountnumber",
        "checkaccount",
        "checkaba",
        "iban",
        "track1",
        "track2",
        "magstripe",
        "expirydate",
        "cardexpiry",
    }
)
# Fields that are forbidden only inside a card or bank object (``card.number``).
_CONTEXTUAL = frozenset({"number", "accountnumber"})
_CARD_OR_BANK = frozenset({"card", "bankaccount", "bank", "check", "echeck", "ach"})


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def contains_card_number(text: str) -> bool:
    """True when ``text`` holds a 13-19 digit run (spaces or dashes allowed) passing Luhn."""
    for match in _DIGIT_RUN.finditer(text):
        digits = re.sub(r"[ -]", "", match.group())
        if luhn_valid(digits):
            return True
    return False


def _norm(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def forbidden_fields(value: Any, path: str = "", parent: str = "") -> Iterator[str]:
    """Dotted paths of fields in a decoded JSON document that would carry raw numbers."""
    if isinstance(value, dict):
        for key, child in value.items():
            norm = _norm(str(key))
            here = f"{path}.{key}" if path else str(key)
            if norm in FORBIDDEN_FIELDS or (norm in _CONTEXTUAL and parent in _CARD_OR_BANK):
                yield here
            else:
                yield from forbidden_fields(child, here, norm)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from forbidden_fields(child, f"{path}[{i}]", parent)
