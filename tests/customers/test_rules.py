"""The pure customer rules: phone numbers and SMS consent, keywords, emails, websites, names."""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from payhub.domain.addresses import ADDRESS_LIMITS, Address, clean_address
from payhub.domain.consent import (
    HELP_WORDS,
    NO_CONSENT,
    START_WORDS,
    STOP_WORDS,
    ConsentSource,
    ConsentState,
    Keyword,
    SmsLine,
    after_phone_change,
    apply_keyword,
    clean_phone,
    give_or_withdraw,
    keyword_of,
    may_text,
    same_number,
    us_mobile_number,
)
from payhub.domain.customers import clean_email, clean_name, clean_website
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import normal_text, text_fault

T0 = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
# Area codes of the 50 states (none shared with Canada or a territory).
US_AREAS = ["201", "212", "213", "305", "312", "404", "415", "512", "617", "702", "713", "917"]
CANADA_AREAS = ["403", "416", "514", "604", "613", "902"]
TERRITORY_AREAS = ["787", "671", "340"]  # Puerto Rico, Guam, US Virgin Islands


def line(areas: list[str]) -> st.SearchStrategy[str]:
    """Ten-digit North American numbers: area, a 2-9 exchange, four digits."""
    return st.builds(
        lambda a, x, y, n: f"{a}{x}{y:02d}{n:04d}",
        st.sampled_from(areas),
        st.integers(2, 9),
        st.integers(0, 99),
        st.integers(0, 9999),
    ).filter(lambda d: d[3:6] != "555" or d[6:8] == "01")  # 555 outside 01xx is unassigned


def valid(digits: str) -> str | None:
    """The number in E.164 when it is a valid number at all."""
    try:
        return clean_phone(digits)
    except ValidationError:
        return None


def spellings(digits: str) -> list[str]:
    a, x, n = digits[:3], digits[3:6], digits[6:]
    return [
        digits,
        f"({a}) {x}-{n}",
        f"{a}-{x}-{n}",
        f"+1 {a} {x} {n}",
        f"1-{a}-{x}-{n}",
        f"+1{digits}",
        f" {a}.{x}.{n} ",
    ]


# --- phone numbers and consent -------------------------------------------------------------


@given(line(US_AREAS))
def test_a_us_number_is_kept_in_e164_however_it_is_written(digits: str) -> None:
    assume(valid(digits) is not None)
    expected = us_mobile_number(digits)
    assert expected == f"+1{digits}"
    for text in spellings(digits):
        assert us_mobile_number(text) == expected
        assert clean_phone(text) == expected
        assert same_number(text, expected)


@given(line(CANADA_AREAS + TERRITORY_AREAS))
def test_a_plus_one_number_outside_the_us_is_refused(digits: str) -> None:
    assume(valid(digits) is not None)
    with pytest.raises(ValidationError) as refused:
        us_mobile_number(f"+1 {digits}")
    assert refused.value.fields == [FieldError("phone", "must be a US number to receive texts")]


@pytest.mark.parametrize(
    ("number", "message"),
    [
        ("+44 7911 123456", "must be a US number to receive texts"),
        ("+33 6 12 34 56 78", "must be a US number to receive texts"),
        ("+1 800 234 5678", "must be a mobile number to receive texts"),
        ("+1 900 555 0100", "must be a mobile number to receive texts"),
        ("12345", "is not a valid phone number"),
        ("not a number", "is not a valid phone number"),
        ("+1 415 555 267", "is not a valid phone number"),
        ("", "is required to record SMS consent"),
    ],
)
def test_consent_needs_a_valid_us_mobile_number(number: str, message: str) -> None:
    with pytest.raises(ValidationError) as refused:
        us_mobile_number(number)
    assert refused.value.fields == [FieldError("phone", message)]


@given(st.text(max_size=60))
def test_any_text_is_a_us_mobile_number_or_a_400(text: str) -> None:
    faults: list[FieldError] = []
    try:
        number = us_mobile_number(text)
    except ValidationError as e:
        faults = e.fields
    if faults:
        assert [f.field for f in faults] == ["phone"]
    else:
        assert number.startswith("+1")
        assert len(number) == 12


@given(st.text(max_size=60), st.booleans(), st.one_of(st.none(), st.text(max_size=20)))
def test_withdrawing_always_works(phone: str, had: bool, stored: str | None) -> None:
    current = ConsentState(had, "+14155552671" if had else None, ConsentSource.API, T0)
    state = give_or_withdraw(current, False, phone, stored, ConsentSource.API, T0)
    assert state.consent is False
    assert state.source is ConsentSource.API
    assert state.recorded_at == T0


def test_consent_uses_the_number_sent_else_the_customers() -> None:
    given_ = give_or_withdraw(
        NO_CONSENT, True, "(212) 555-0142", "+14155552671", ConsentSource.PORTAL, T0
    )
    assert given_ == ConsentState(True, "+12125550142", ConsentSource.PORTAL, T0)
    stored = give_or_withdraw(NO_CONSENT, True, None, "+14155552671", ConsentSource.API, T0)
    assert stored.phone == "+14155552671"
    with pytest.raises(ValidationError) as refused:
        give_or_withdraw(NO_CONSENT, True, None, None, ConsentSource.API, T0)
    assert [f.field for f in refused.value.fields] == ["smsConsent"]
    withdrawn = give_or_withdraw(stored, False, None, "+14155552671", ConsentSource.API, T0)
    assert withdrawn == ConsentState(False, "+14155552671", ConsentSource.API, T0)


@given(line(US_AREAS), st.data())
def test_consent_ends_only_when_the_number_really_changes(digits: str, data: st.DataObject) -> None:
    number = valid(digits)
    assume(number is not None)
    current = ConsentState(True, number, ConsentSource.API, T0)
    later = T0 + timedelta(days=1)
    same = data.draw(st.sampled_from(spellings(digits)))
    assert after_phone_change(current, same, ConsentSource.API, later) is None
    assert (
        after_phone_change(current, "+12125550199", ConsentSource.API, later)
        == ConsentState(False, number, ConsentSource.API, later)
        or number == "+12125550199"
    )
    assert after_phone_change(current, None, ConsentSource.API, later) == ConsentState(
        False, number, ConsentSource.API, later
    )
    assert after_phone_change(NO_CONSENT, "+12125550199", ConsentSource.API, later) is None


# --- keywords --------------------------------------------------------------------------------


def dressed(word: str) -> st.SearchStrategy[str]:
    """The word as people type it: any letter case, spaces around, a full stop or two."""
    return st.builds(
        lambda flips, pad, end: (
            pad
            + "".join(c.lower() if f else c for c, f in zip(word, flips, strict=False))
            + end
            + pad
        ),
        st.lists(st.booleans(), min_size=len(word), max_size=len(word)),
        st.sampled_from(["", " ", "  ", "\n"]),
        st.sampled_from(["", ".", "!", "?!"]),
    )


@given(st.data())
def test_each_keyword_is_recognised_however_it_is_typed(data: st.DataObject) -> None:
    for words, keyword in (
        (STOP_WORDS, Keyword.STOP),
        (START_WORDS, Keyword.START),
        (HELP_WORDS, Keyword.HELP),
    ):
        word = data.draw(st.sampled_from(sorted(words)))
        assert keyword_of(data.draw(dressed(word))) is keyword


@given(st.text(alphabet=string.ascii_letters + " ", max_size=20))
def test_other_messages_are_no_keyword(text: str) -> None:
    assume(text.strip().upper() not in STOP_WORDS | START_WORDS | HELP_WORDS)
    assert keyword_of(text) is None
    assert keyword_of(f"please {text} stop") is None


@given(st.lists(st.sampled_from([Keyword.STOP, Keyword.START, Keyword.HELP]), max_size=8))
def test_stop_withdraws_and_start_never_restores_consent(keywords: list[Keyword]) -> None:
    number = "+14155552671"
    sms = SmsLine(ConsentState(True, number, ConsentSource.API, T0))
    stopped = False
    for keyword in keywords:
        outcome = apply_keyword(sms, keyword, number, T0)
        assert outcome.reply is keyword
        if keyword is Keyword.STOP:
            assert outcome.line.blocked
            assert outcome.consent_changed == sms.consent.consent
            stopped = True
        if keyword is Keyword.START:
            assert not outcome.line.blocked
        sms = outcome.line
    assert sms.consent.consent is not stopped
    assert may_text(sms, number) is (not stopped)
    if stopped:
        assert sms.consent.source is ConsentSource.KEYWORD


def test_texts_go_only_to_the_number_consented_for() -> None:
    sms = SmsLine(ConsentState(True, "+14155552671", ConsentSource.API, T0))
    assert may_text(sms, "(415) 555-2671")
    assert not may_text(sms, "+12125550142")
    assert not may_text(SmsLine(sms.consent, blocked=True), "+14155552671")
    assert not may_text(SmsLine(NO_CONSENT), "+14155552671")


# --- emails, websites, names, addresses ----------------------------------------------------


@given(st.emails())
def test_valid_emails_are_kept_with_the_domain_in_lower_case(email: str) -> None:
    assume(len(email) <= 254)
    local, _, domain = email.rpartition("@")
    assert clean_email(f"  {email} ") == f"{local}@{domain.lower()}"


@pytest.mark.parametrize(
    "email",
    [
        "plain",
        "a@b",
        "a@@b.com",
        "a b@c.com",
        "a@b c.com",
        "a@-b.com",
        "a@b.c",
        ".a@b.com",
        "a..b@c.com",
        "a@b.com.",
        "<a@b.com>",
        "a@b_c.com",
        "x" * 65 + "@b.com",
    ],
)
def test_malformed_emails_are_refused(email: str) -> None:
    with pytest.raises(ValidationError) as refused:
        clean_email(email)
    assert refused.value.fields == [FieldError("email", "is not a valid email address")]


labels = st.from_regex(r"\A[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?\Z")


@given(
    st.lists(labels, min_size=1, max_size=3),
    st.sampled_from(["com", "org", "io", "shop"]),
    st.sampled_from(["", "/", "/about", "/a/b?c=d"]),
    st.sampled_from(["http", "https", ""]),
)
def test_websites_are_http_addresses_on_real_host_names(
    parts: list[str], tld: str, path: str, scheme: str
) -> None:
    host = ".".join([*parts, tld])
    typed = f"{scheme}://{host.upper()}{path}" if scheme else f"{host}{path}"
    assert clean_website(typed) == f"{scheme or 'https'}://{host}{path}"


@pytest.mark.parametrize(
    "site",
    [
        "ftp://example.com",
        "https://localhost",
        "https://exa mple.com",
        "https://user:pw@ex.com",
        "https://",
        "javascript:alert(1)",
        "https://-bad.com",
        "https://example.c0m",
        "https://example.com:99999",
        "https://" + "a" * 200 + ".com",
    ],
)
def test_other_websites_are_refused(site: str) -> None:
    with pytest.raises(ValidationError) as refused:
        clean_website(site)
    assert [f.field for f in refused.value.fields] == ["website"]


@given(st.text(max_size=120), st.text(max_size=120), st.text(max_size=120))
def test_a_name_needs_one_part_and_each_part_fits(first: str, last: str, company: str) -> None:
    errors: list[FieldError] = []
    name = clean_name(first, last, company, errors)
    parts = [p.strip() for p in (first, last, company)]
    if not any(parts):
        assert FieldError("name", "needs at least one of first, last or company") in errors
    for part, field in zip(parts, ("name.first", "name.last", "name.company"), strict=True):
        # Measured and checked as stored: NFC, under the one text rule (docs/errors.md).
        too_long = len(normal_text(part)) > 100
        assert any(e.field == field for e in errors) is (
            too_long or text_fault(normal_text(part)) is not None
        )
    if not errors:
        assert name.display == (name.company or " ".join(p for p in (name.first, name.last) if p))


@given(
    st.dictionaries(
        st.sampled_from(sorted(ADDRESS_LIMITS)),
        st.text(alphabet=string.ascii_letters + " ", max_size=220),
    )
)
def test_address_fields_keep_their_limits(fields: dict[str, str]) -> None:
    errors: list[FieldError] = []
    sent = Address(**{("postal_code" if k == "postalCode" else k): v for k, v in fields.items()})
    clean = clean_address(sent, "billingAddress", errors)
    too_long = {k for k, v in fields.items() if len(v.strip()) > ADDRESS_LIMITS[k]}
    assert {e.field for e in errors} == {f"billingAddress.{k}" for k in too_long}
    if not any(v.strip() for v in fields.values()):
        assert clean is None
