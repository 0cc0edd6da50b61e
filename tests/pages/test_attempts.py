"""Attempt tokens: bound to one pay link, one form and a lifetime; forgeries are refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub_server.pages import attempts
from payhub_server.pages.attempts import AttemptRefused, Purpose

KEY = attempts.derive_key(b"k" * 32)
NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
NONCE = bytes(range(16))


def test_a_token_verifies_for_its_page_and_form_and_names_its_attempt() -> None:
    token = attempts.issue(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", NONCE, NOW)
    attempt = attempts.verify(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", token, NOW)
    assert attempt.attempt_id.startswith("ppa_")
    # The same token always names the same attempt: a replay is the same payment.
    again = attempts.verify(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", token, NOW)
    assert again.attempt_id == attempt.attempt_id


@pytest.mark.parametrize(
    ("purpose", "pay_token", "key", "at"),
    [
        (Purpose.SMS, "paytoken-aaaaaaaaaaaa", KEY, NOW),  # another form
        (Purpose.PAY, "paytoken-bbbbbbbbbbbb", KEY, NOW),  # another invoice
        (Purpose.PAY, "paytoken-aaaaaaaaaaaa", attempts.derive_key(b"x" * 32), NOW),  # key
        (Purpose.PAY, "paytoken-aaaaaaaaaaaa", KEY, NOW + attempts.LIFETIME),  # expired
    ],
)
def test_a_token_is_refused_elsewhere(
    purpose: Purpose, pay_token: str, key: bytes, at: datetime
) -> None:
    token = attempts.issue(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", NONCE, NOW)
    with pytest.raises(AttemptRefused) as refused:
        attempts.verify(key, purpose, pay_token, token, at)
    assert refused.value.status == 403


def test_a_token_is_good_until_just_before_it_expires() -> None:
    token = attempts.issue(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", NONCE, NOW)
    late = NOW + attempts.LIFETIME - timedelta(seconds=1)
    assert attempts.verify(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", token, late)


@given(st.one_of(st.none(), st.integers(), st.text(max_size=300)))
def test_anything_else_is_refused(garbage: object) -> None:
    with pytest.raises(AttemptRefused):
        attempts.verify(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", garbage, NOW)


def test_a_tampered_expiry_is_refused() -> None:
    token = attempts.issue(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", NONCE, NOW)
    purpose, nonce, expires, mac = token.split(".")
    forged = f"{purpose}.{nonce}.{int(expires) + 86400}.{mac}"
    with pytest.raises(AttemptRefused):
        attempts.verify(KEY, Purpose.PAY, "paytoken-aaaaaaaaaaaa", forged, NOW)


# --- checkout tokens: the amount and vendor session a pay-page session was made for -------

_AMOUNTS = st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False)
_REFERENCES = st.text(alphabet=st.characters(codec="ascii", exclude_categories=("Cc",)),
                      min_size=1, max_size=300)  # fmt: skip


@given(amount=_AMOUNTS, reference=_REFERENCES)
def test_a_checkout_token_gives_back_its_amount_and_session(amount: object, reference: str) -> None:
    token = attempts.issue_checkout(KEY, "paytoken-aaaaaaaaaaaa", str(amount), reference, NOW)
    bound = attempts.verify_checkout(KEY, "paytoken-aaaaaaaaaaaa", token, NOW)
    assert (bound.amount, bound.reference) == (str(amount), reference)


@pytest.mark.parametrize(
    ("pay_token", "key", "at", "change"),
    [
        ("paytoken-bbbbbbbbbbbb", KEY, NOW, None),  # another invoice's link
        ("paytoken-aaaaaaaaaaaa", attempts.derive_key(b"x" * 32), NOW, None),  # another key
        ("paytoken-aaaaaaaaaaaa", KEY, NOW + attempts.LIFETIME, None),  # expired
        ("paytoken-aaaaaaaaaaaa", KEY, NOW, "amount"),  # 10.00 made into 100.00
        ("paytoken-aaaaaaaaaaaa", KEY, NOW, "purpose"),  # an attempt token's shape
    ],
)
def test_a_checkout_token_is_refused_elsewhere_or_altered(
    pay_token: str, key: bytes, at: datetime, change: str | None
) -> None:
    token = attempts.issue_checkout(KEY, "paytoken-aaaaaaaaaaaa", "10.00", "ORDER-1", NOW)
    if change == "amount":
        parts = token.split(".")
        parts[1] = attempts._b64(b"100.00\nORDER-1")
        token = ".".join(parts)
    elif change == "purpose":
        token = "pay." + token.split(".", 1)[1]
    with pytest.raises(AttemptRefused):
        attempts.verify_checkout(key, pay_token, token, at)
