"""Invoice numbers: the default ``INV-000123`` and merchant formats with tokens (pure).

An invoice number is at most 20 characters of letters, digits, ``-``, ``_`` and ``.``
(spec: Limits). A merchant format is literal text of those characters plus tokens:

- ``{YYYY}`` / ``{YY}``: the year of creation in the merchant's time zone;
- ``{MM}``: the month (01-12);
- ``{LOC}``: the invoice location's short code (1 to 6 characters), left out (with one
  separator next to it, so ``{LOC}-{####}`` gives ``0042``) when the invoice has no
  location or the location has no code;
- exactly one counter token ``{###}`` to ``{#########}`` (3 to 9 ``#``): the merchant's
  counter, zero-padded to the token's width.

Why the limit provably holds: the counter is bounded by its token's width (``{####}`` counts
to 9999). A format is refused when set if its longest possible result (literals + 4 per
``{YYYY}`` + 2 per ``{YY}``/``{MM}`` + 6 per ``{LOC}`` + the counter width) exceeds 20, and
a creation that would need a counter past the width is refused with 409 ("the format ran
out of numbers") instead of producing a longer number.

The default (no merchant format) is ``INV-`` and the platform-wide sequence, zero-padded to
six digits; past 999999 it simply grows (``INV-1000000``), at most 4 + 16 characters.
"""

from __future__ import annotations

import re
from datetime import datetime

import attrs

from payhub.domain.errors import Conflict, FieldError, ValidationError

NUMBER_MAX = 20
DEFAULT_PREFIX = "INV-"
DEFAULT_WIDTH = 6
DEFAULT_MAX = 10 ** (NUMBER_MAX - len(DEFAULT_PREFIX)) - 1
FORMAT_INPUT_MAX = 100
LOC_MAX = 6
_ALLOWED = re.compile(r"^[A-Za-z0-9._-]*$")
NUMBER_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,20}$")
_TOKEN = re.compile(r"\{([^{}]*)\}")
_COUNTER = re.compile(r"^#{3,9}$")
_WIDTHS = {"YYYY": 4, "YY": 2, "MM": 2, "LOC": LOC_MAX}


@attrs.frozen
class NumberFormat:
    """A checked merchant format: its text and the width of its counter."""

    text: str
    counter_width: int

    @property
    def max_counter(self) -> int:
        return int(10**self.counter_width) - 1


def parse_format(text: str, field: str = "format") -> NumberFormat:
    """Check a merchant format (400 with the reason when it is not usable)."""
    text = text.strip()
    errors: list[str] = []
    if not text:
        raise ValidationError.for_field(field, "must not be blank")
    if len(text) > FORMAT_INPUT_MAX:
        raise ValidationError.for_field(field, f"must be at most {FORMAT_INPUT_MAX} characters")
    counter_widths: list[int] = []
    longest = 0
    for piece in _TOKEN.split(text)[::2]:  # the literal pieces between tokens
        if "{" in piece or "}" in piece:
            errors.append("has an unmatched '{' or '}'")
        elif not _ALLOWED.match(piece):
            errors.append(f"literal text '{piece}' may only hold letters, digits, '-', '_' and '.'")
        longest += len(piece)
    for token in _TOKEN.findall(text):
        if _COUNTER.match(token):
            counter_widths.append(len(token))
            longest += len(token)
        elif token in _WIDTHS:
            longest += _WIDTHS[token]
        else:
            errors.append(
                f"has an unknown token '{{{token}}}'; use {{YYYY}}, {{YY}}, {{MM}}, {{LOC}}"
                " or one counter {###} to {#########}"
            )
    if len(counter_widths) != 1:
        errors.append("must hold exactly one counter token such as {####} or {#####}")
    if not errors and longest > NUMBER_MAX:
        errors.append(
            f"could produce {longest} characters; an invoice number holds at most {NUMBER_MAX}"
            " (counting {YYYY} as 4, {YY} and {MM} as 2, {LOC} as 6 and each # as 1)"
        )
    if errors:
        raise ValidationError(
            f"{field}: " + "; ".join(errors), [FieldError(field, e) for e in errors]
        )
    return NumberFormat(text, counter_widths[0])


def check_starting_number(fmt: NumberFormat, start: int, field: str = "start") -> int:
    if not 1 <= start <= fmt.max_counter:
        raise ValidationError.for_field(
            field, f"must be from 1 to {fmt.max_counter} for a {fmt.counter_width}-digit counter"
        )
    return start


def render(fmt: NumberFormat, counter: int, created_at_local: datetime, loc: str | None) -> str:
    """The number for ``counter`` (``created_at_local`` in the merchant's zone); 409 once the
    counter outgrows its token."""
    if counter > fmt.max_counter:
        raise Conflict(
            f"the invoice number format '{fmt.text}' ran out of numbers (its counter stops at"
            f" {fmt.max_counter}); set a format with a wider counter"
        )

    def token(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "YYYY":
            return f"{created_at_local.year:04d}"
        if name == "YY":
            return f"{created_at_local.year % 100:02d}"
        if name == "MM":
            return f"{created_at_local.month:02d}"
        if name == "LOC":
            return (loc or "")[:LOC_MAX]
        return f"{counter:0{len(name)}d}"

    text = fmt.text
    if not loc:  # left out with one separator next to it: "{LOC}-{####}" gives "0042"
        text = re.sub(r"\{LOC\}[-_.]|[-_.]\{LOC\}|\{LOC\}", "", text)
    number = _TOKEN.sub(token, text)
    assert NUMBER_PATTERN.match(number), number
    return number


def default_number(sequence_value: int) -> str:
    if not 1 <= sequence_value <= DEFAULT_MAX:
        raise Conflict("the platform invoice sequence ran out of numbers")
    return f"{DEFAULT_PREFIX}{sequence_value:0{DEFAULT_WIDTH}d}"


def is_invoice_number(value: str) -> bool:
    return bool(NUMBER_PATTERN.match(value))
