"""The accounting domain's small rules: the observed rate, the request ids, the token bytes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from payhub.adapters.accounting.qbo import account_from_notes, retry_delay
from payhub.domain.accounting import (
    Grant,
    LinkKind,
    RemoteInvoiceState,
    decode_tokens,
    encode_tokens,
    observed_percent,
    request_id_for,
    settled_remotely,
)

CENTS = st.integers(min_value=0, max_value=10**9).map(lambda c: Decimal(c) / 100)
T0 = datetime(2026, 1, 1, tzinfo=UTC)


@given(taxable=CENTS.filter(lambda d: d > 0), percent=st.integers(0, 1_000_000))
def test_the_observed_rate_gives_back_the_tax_it_came_from(taxable: Decimal, percent: int) -> None:
    rate = Decimal(percent) / 10_000  # 0 to 100 with four decimals
    tax = (taxable * rate / 100).quantize(Decimal("0.01"))
    found = observed_percent(tax, taxable)
    assert found is not None
    assert 0 <= found <= 100
    assert found == found.quantize(Decimal("0.0001"))
    # The observed rate reproduces the system's tax to the cent.
    assert abs((taxable * found / 100) - tax) <= Decimal("0.005") + taxable / 2_000_000


def test_no_rate_is_observed_without_a_taxable_amount_or_beyond_100() -> None:
    assert observed_percent(Decimal(1), Decimal(0)) is None
    assert observed_percent(Decimal(-1), Decimal(10)) is None
    assert observed_percent(Decimal(11), Decimal(10)) is None


@given(st.text(min_size=1, max_size=40), st.sampled_from(list(LinkKind)))
def test_request_ids_are_stable_per_object_and_differ_between_objects(
    local: str, kind: LinkKind
) -> None:
    first = request_id_for("mer_1", kind, local)
    assert first == request_id_for("mer_1", kind, local)
    assert len(first) <= 50  # Intuit's requestid is at most 50 characters
    assert first != request_id_for("mer_2", kind, local)
    assert first != request_id_for("mer_1", kind, local + "x")


def test_tokens_round_trip_as_the_bytes_that_are_sealed() -> None:
    grant = Grant("at", "rt", T0 + timedelta(hours=1), T0 + timedelta(days=100))
    assert decode_tokens(encode_tokens(grant)) == grant
    assert grant.access_fresh(T0)
    assert not grant.access_fresh(T0 + timedelta(minutes=56))  # refreshed five minutes early
    assert "rt" not in repr(grant)


def test_paid_there_means_nothing_due_on_a_live_invoice() -> None:
    assert settled_remotely(RemoteInvoiceState("1", Decimal(0), Decimal(10)))
    assert not settled_remotely(RemoteInvoiceState("1", Decimal(1), Decimal(10)))
    assert not settled_remotely(RemoteInvoiceState("1", Decimal(0), Decimal(0)))
    assert not settled_remotely(RemoteInvoiceState("1", Decimal(0), Decimal(10), deleted=True))


def test_retry_after_in_seconds_or_as_a_date_else_backoff() -> None:
    assert retry_delay("7", 0, T0) == 7.0
    assert retry_delay("Thu, 01 Jan 2026 00:00:30 GMT", 0, T0) == 30.0
    assert retry_delay(None, 2, T0) == 4.0
    assert retry_delay("soon", 1, T0) == 2.0


def test_the_account_number_is_read_back_from_the_notes() -> None:
    assert account_from_notes("hello\npayhub account: A-1\n") == "A-1"
    assert account_from_notes(None) is None
    assert account_from_notes("account: A-1") is None
