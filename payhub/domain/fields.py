"""Input checks every record shares: trimmed text within a limit, and one error for all faults.

Record validators collect ``FieldError``s for every field of a request and raise once, so a
caller learns about every field at fault in one response.

The one text rule (``text_fault``): text is taken in Unicode NFC and refuses control
characters, bidi embeddings, overrides and isolates, non-characters and lone surrogates:
they would reorder or hide what a page, a PDF or a text message shows. The joiners real
names and scripts use (ZWJ U+200D, ZWNJ U+200C) and the bidi marks (LRM, RLM, ALM) are
allowed. The HTTP decoding hook applies it to every string of every JSON body (tabs and
line breaks allowed there); ``clean_text`` applies it to single-line fields.
"""

from __future__ import annotations

import re
import unicodedata

from payhub.domain.errors import FieldError, ValidationError

# LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI: they reorder the text around them.
_BIDI = "\u202a-\u202e\u2066-\u2069"
# U+FDD0..U+FDEF and the last two code points of each of the 17 planes.
_NON_CHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17)
)
_OTHERS = f"{_BIDI}\ud800-\udfff{_NON_CHARACTERS}"  # with lone surrogates
_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_OTHERS}]")
_LINES = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_OTHERS}]")  # tab, LF, CR pass


def normal_text(value: str) -> str:
    """``value`` in Unicode NFC (composed: ``e`` + combining acute becomes ``é``)."""
    return unicodedata.normalize("NFC", value)


def text_fault(value: str, multiline: bool = False) -> str | None:
    """Why ``value`` cannot be taken as text, or ``None``. ``multiline`` allows tab, line
    feed and carriage return (nothing else below U+0020)."""
    found = (_LINES if multiline else _ONE_LINE).search(value)
    if found is None:
        return None
    code = ord(found.group())
    if code < 0xA0:
        return f"must not contain control characters (U+{code:04X})"
    if 0xD800 <= code <= 0xDFFF:
        return "must not contain unpaired surrogates"
    if 0x2000 <= code <= 0x206F:
        return f"must not contain bidi embedding, override or isolate characters (U+{code:04X})"
    return f"must not contain Unicode non-characters (U+{code:04X})"


def clean_text(value: str | None, field: str, limit: int, errors: list[FieldError]) -> str | None:
    """Trimmed NFC text of at most ``limit`` characters, blank as ``None``, one line under the
    text rule (``text_fault``); faults go to ``errors``."""
    if value is None:
        return None
    value = normal_text(value.strip())
    if not value:
        return None
    fault = text_fault(value)
    if len(value) > limit:
        errors.append(FieldError(field, f"must be at most {limit} characters"))
    elif fault:
        errors.append(FieldError(field, fault))
    return value


def collect(errors: list[FieldError], check: ValidationError | None) -> None:
    """Add a caught ``ValidationError``'s fields to ``errors``."""
    if check is not None:
        errors.extend(check.fields)


def raise_if_any(errors: list[FieldError]) -> None:
    """One ``ValidationError`` naming every field at fault, if there are any."""
    if errors:
        raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
