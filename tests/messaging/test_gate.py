"""The SMS gate: one pure function, every way a text can be refused."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.consent import ConsentSource, ConsentState
from payhub.domain.messaging import Refusal, TextKind, decide, mask_phone

AT = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
NUMBERS = ["+14155552671", "+14155550123", "+12125550199"]
ALL = frozenset(TextKind)


def consented(phone: str) -> ConsentState:
    return ConsentState(True, phone, ConsentSource.API, AT)


def test_allowed_when_everything_holds() -> None:
    assert decide(TextKind.RECEIPT, ALL, consented(NUMBERS[0]), False, NUMBERS[0]) is None


def test_same_number_in_another_format_is_the_same_number() -> None:
    assert decide(TextKind.RECEIPT, ALL, consented(NUMBERS[0]), False, "(415) 555-2671") is None


def test_each_refusal() -> None:
    ok = consented(NUMBERS[0])
    assert decide(TextKind.RECEIPT, frozenset(), ok, False, NUMBERS[0]) is Refusal.KIND_DISABLED
    only_pay = frozenset({TextKind.PAY_LINK})
    assert decide(TextKind.RECEIPT, only_pay, ok, False, NUMBERS[0]) is Refusal.KIND_DISABLED
    assert decide(TextKind.RECEIPT, ALL, ok, False, None) is Refusal.NO_PHONE
    assert decide(TextKind.RECEIPT, ALL, ConsentState(), False, NUMBERS[0]) is Refusal.NO_CONSENT
    withdrawn = ConsentState(False, NUMBERS[0], ConsentSource.KEYWORD, AT)
    assert decide(TextKind.RECEIPT, ALL, withdrawn, False, NUMBERS[0]) is Refusal.NO_CONSENT
    assert decide(TextKind.RECEIPT, ALL, ok, False, NUMBERS[1]) is Refusal.NUMBER_NOT_CONSENTED
    assert decide(TextKind.RECEIPT, ALL, ok, True, NUMBERS[0]) is Refusal.NUMBER_BLOCKED


consents = st.builds(
    ConsentState,
    st.booleans(),
    st.one_of(st.none(), st.sampled_from(NUMBERS)),
    st.sampled_from(list(ConsentSource)),
    st.just(AT),
)


@given(
    st.sampled_from(list(TextKind)),
    st.frozensets(st.sampled_from(list(TextKind))),
    consents,
    st.booleans(),
    st.one_of(st.none(), st.sampled_from(NUMBERS)),
)
def test_a_text_goes_only_when_every_rule_holds(
    kind: TextKind,
    enabled: frozenset[TextKind],
    consent: ConsentState,
    blocked: bool,
    to: str | None,
) -> None:
    verdict = decide(kind, enabled, consent, blocked, to)
    every_rule = (
        kind in enabled
        and to is not None
        and consent.consent
        and consent.phone == to
        and not blocked
    )
    assert (verdict is None) == every_rule
    if verdict is not None:
        assert isinstance(verdict, Refusal)  # always a recorded reason


@given(
    st.sampled_from(list(TextKind)),
    st.frozensets(st.sampled_from(list(TextKind))),
    consents,
    st.one_of(st.none(), st.sampled_from(NUMBERS)),
)
def test_a_blocked_number_is_never_texted(
    kind: TextKind, enabled: frozenset[TextKind], consent: ConsentState, to: str | None
) -> None:
    assert decide(kind, enabled, consent, True, to) is not None


def test_kind_names_parse_loosely() -> None:
    assert TextKind.parse("pay-link") is TextKind.PAY_LINK
    assert TextKind.parse("FailedPayment") is TextKind.FAILED_PAYMENT
    assert TextKind.parse("schedule_reminder") is TextKind.SCHEDULE_REMINDER


def test_mask_phone() -> None:
    assert mask_phone("+14155552671") == "+1••••••2671"
