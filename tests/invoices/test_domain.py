"""Properties of invoice money, payments and numbering (pure domain, hypothesis)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from payhub.domain.embedding import change_origins, clean_origin
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict, FieldError, ValidationError
from payhub.domain.invoices import (
    AllowedMethods,
    Invoice,
    InvoicePayment,
    InvoiceStatus,
    LineInput,
    PartialPaymentMode,
    PaymentSourceKind,
    apply_payment,
    check_payment,
    check_terms,
    clean_lines,
    mark_sent,
    mark_void,
    payment_options,
    totals,
)
from payhub.domain.money import Money, round_half_up
from payhub.domain.numbering import (
    NUMBER_MAX,
    default_number,
    parse_format,
    render,
)
from payhub.domain.payments import MethodType
from tests.gateways.catalog_rows import gateway

NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
quantities = st.decimals(min_value="0.0001", max_value="1000", places=4)
prices = st.decimals(min_value="0", max_value="100000", places=2)
percents = st.decimals(min_value="0", max_value="100", places=4)
line_inputs = st.builds(
    LineInput,
    description=st.just("Item"),
    quantity=quantities,
    unit_price=prices,
    is_taxable=st.booleans(),
)


def make_invoice(
    total_lines: list[LineInput],
    percent: Decimal = Decimal(0),
    mode: PartialPaymentMode = PartialPaymentMode.DISABLED,
    deposit: Decimal | None = None,
) -> Invoice:
    errors: list[FieldError] = []
    lines = clean_lines(total_lines, "USD", percent, errors)
    assert not errors
    t = totals(lines, "USD")
    return Invoice(
        id="inv_1", merchant_id="mer_1", number="INV-000001", pay_token="tok",
        customer_id=None, currency="USD", lines=lines, tax_rate_id=None, tax_percent=percent,
        subtotal=t.subtotal, tax=t.tax, total=t.total, due_date=None, gateway="simulator",
        allowed_methods=AllowedMethods.BOTH, partial_mode=mode,
        deposit=Money(deposit, "USD") if deposit is not None else None, authorize_only=False,
        bill_to=None, ship_to=None, location_id=None, status=InvoiceStatus.SENT,
        amount_paid=Money.zero("USD"), created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def pay(invoice: Invoice, amount: Money) -> None:
    payment = InvoicePayment(
        id=f"ip{len(invoice.payments)}", invoice_id=invoice.id,
        transaction_id=f"tx{len(invoice.payments)}", amount=amount,
        method_type=MethodType.CARD, status="Captured", source=PaymentSourceKind.PAY_PAGE,
        created_at=NOW,
    )  # fmt: skip
    apply_payment(invoice, payment, NOW)


@given(st.lists(line_inputs, min_size=1, max_size=8), percents)
def test_total_is_the_sum_of_rounded_lines_and_their_tax(
    lines: list[LineInput], percent: Decimal
) -> None:
    errors: list[FieldError] = []
    priced = clean_lines(lines, "USD", percent, errors)
    assert not errors
    t = totals(priced, "USD")
    expected = Decimal(0)
    for given_line, line in zip(lines, priced, strict=True):
        amount = round_half_up(given_line.quantity * given_line.unit_price, "USD")
        tax = round_half_up(amount * percent / 100, "USD") if given_line.is_taxable else 0
        assert line.amount.amount == amount
        assert line.tax.amount == tax
        expected += amount + tax
    assert t.total.amount == expected == t.subtotal.amount + t.tax.amount
    assert t.total.amount == t.total.amount.quantize(Decimal("0.01"))


def test_tax_rounds_half_up_per_line_and_skips_untaxed_lines() -> None:
    lines = [
        LineInput("a", Decimal(1), Decimal("0.50")),  # 0.50 * 10% = 0.05
        LineInput("b", Decimal(1), Decimal("0.25")),  # 0.025 -> 0.03 (half up)
        LineInput("c", Decimal(3), Decimal("9.99"), is_taxable=False),
    ]
    invoice = make_invoice(lines, Decimal(10))
    assert [line.tax.amount for line in invoice.lines] == [
        Decimal("0.05"), Decimal("0.03"), Decimal("0.00"),
    ]  # fmt: skip
    assert invoice.total.amount == Decimal("0.75") + Decimal("29.97") + Decimal("0.08")


amount_choices = st.lists(st.decimals(min_value="0.01", max_value="500", places=2), max_size=8)


@given(
    st.sampled_from(list(PartialPaymentMode)),
    st.decimals(min_value="1.00", max_value="1000", places=2),
    st.decimals(min_value="0.01", max_value="999", places=2),
    amount_choices,
    st.lists(st.booleans(), max_size=8),
)
def test_no_accepted_payment_sequence_overpays_or_leaves_paid_with_money_due(
    mode: PartialPaymentMode,
    price: Decimal,
    deposit: Decimal,
    attempts: list[Decimal],
    full: list[bool],
) -> None:
    assume(deposit < price)
    invoice = make_invoice(
        [LineInput("x", Decimal(1), price)],
        mode=mode,
        deposit=deposit if mode is PartialPaymentMode.FIXED_DEPOSIT else None,
    )
    for i, attempt in enumerate(attempts):
        wants_full = i < len(full) and full[i]
        try:
            amount = check_payment(invoice, None if wants_full else attempt, MethodType.CARD)
        except (ValidationError, Conflict):
            continue
        before = invoice.amount_paid
        if mode is PartialPaymentMode.DISABLED:
            assert amount == invoice.total
            assert before.amount == 0
        if mode is PartialPaymentMode.FIXED_DEPOSIT and before.amount == 0:
            assert amount.amount in (deposit, price)
        if mode is PartialPaymentMode.FIXED_DEPOSIT and before.amount > 0:
            assert amount == invoice.amount_due  # after the deposit: only the rest
        pay(invoice, amount)
        assert invoice.amount_due.amount >= 0
        assert (invoice.status is InvoiceStatus.PAID) == (invoice.amount_due.amount == 0)
    assert invoice.amount_paid.amount == sum(p.amount.amount for p in invoice.payments)
    assert invoice.amount_paid + invoice.amount_due == invoice.total


@given(
    st.decimals(min_value="0.01", max_value="1000", places=2),
    st.decimals(min_value="-10", max_value="1010", places=2),
)
def test_a_deposit_is_accepted_only_above_zero_and_below_the_total(
    price: Decimal, deposit: Decimal
) -> None:
    errors: list[FieldError] = []
    total = Money(price, "USD")
    terms = check_terms(
        gateway("simulator", Environment.SANDBOX), AllowedMethods.BOTH,
        PartialPaymentMode.FIXED_DEPOSIT, deposit, False, total, errors,
    )  # fmt: skip
    accepted = not errors
    assert accepted == (Decimal(0) < deposit < price)
    if accepted:
        assert terms.deposit == Money(deposit, "USD")
    else:
        assert [e.field for e in errors] == ["requiredDepositAmount"]


def test_fixed_deposit_allows_the_deposit_or_the_balance_then_the_rest() -> None:
    invoice = make_invoice(
        [LineInput("x", Decimal(1), Decimal(100))],
        mode=PartialPaymentMode.FIXED_DEPOSIT,
        deposit=Decimal(30),
    )
    options = payment_options(invoice)
    assert [m.amount for m in options.fixed] == [Decimal(30), Decimal(100)]
    with pytest.raises(ValidationError):
        check_payment(invoice, Decimal(50), MethodType.CARD)
    pay(invoice, check_payment(invoice, Decimal(30), MethodType.CARD))
    assert [m.amount for m in payment_options(invoice).fixed] == [Decimal(70)]
    with pytest.raises(ValidationError):
        check_payment(invoice, Decimal(30), MethodType.CARD)
    pay(invoice, check_payment(invoice, None, MethodType.CARD))
    assert invoice.status is InvoiceStatus.PAID
    assert not payment_options(invoice).can_pay
    with pytest.raises(Conflict):
        check_payment(invoice, None, MethodType.CARD)


def test_customer_choice_takes_any_amount_up_to_the_balance() -> None:
    invoice = make_invoice(
        [LineInput("x", Decimal(1), Decimal(10))], mode=PartialPaymentMode.CUSTOMER_CHOICE
    )
    with pytest.raises(ValidationError):
        check_payment(invoice, Decimal("10.01"), MethodType.CARD)
    with pytest.raises(ValidationError):
        check_payment(invoice, Decimal(0), MethodType.CARD)
    with pytest.raises(ValidationError):
        check_payment(invoice, Decimal("0.001"), MethodType.CARD)
    pay(invoice, check_payment(invoice, Decimal("0.01"), MethodType.CARD))
    pay(invoice, check_payment(invoice, Decimal("4.99"), MethodType.CARD))
    assert invoice.status is InvoiceStatus.SENT
    assert invoice.amount_due.amount == Decimal(5)
    pay(invoice, check_payment(invoice, Decimal(5), MethodType.CARD))
    assert invoice.status is InvoiceStatus.PAID


def test_methods_and_states() -> None:
    invoice = make_invoice([LineInput("x", Decimal(1), Decimal(10))])
    invoice.allowed_methods = AllowedMethods.CARD_ONLY
    with pytest.raises(ValidationError) as refused:
        check_payment(invoice, None, MethodType.BANK_ACCOUNT)
    assert refused.value.fields[0].field == "type"
    invoice.status = InvoiceStatus.DRAFT
    mark_sent(invoice, NOW)
    mark_sent(invoice, NOW)  # re-send keeps it Sent
    assert invoice.status is InvoiceStatus.SENT
    mark_void(invoice, NOW)
    mark_void(invoice, NOW)
    assert invoice.status is InvoiceStatus.VOID
    with pytest.raises(Conflict):
        mark_sent(invoice, NOW)
    with pytest.raises(Conflict):
        check_payment(invoice, None, MethodType.CARD)
    paid = make_invoice([LineInput("x", Decimal(1), Decimal(10))])
    pay(paid, paid.total)
    with pytest.raises(Conflict):
        mark_void(paid, NOW)


# --- numbering -----------------------------------------------------------------------------

_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,20}$")
literal = st.text(alphabet="ABCXYZabc0123456789-_.", min_size=0, max_size=8)
tokens = st.sampled_from(["{YYYY}", "{YY}", "{MM}", "{LOC}", "-", "_"])
counters = st.sampled_from(["{###}", "{####}", "{#####}", "{######}", "{#########}"])


@given(
    st.lists(st.one_of(literal, tokens), max_size=5),
    counters,
    st.lists(st.one_of(literal, tokens), max_size=5),
    st.integers(min_value=1, max_value=10**10),
    st.one_of(st.none(), st.text(alphabet="ABCDEF0123456789", min_size=1, max_size=6)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(9999, 12, 31)),
)
def test_numbers_never_exceed_twenty_safe_characters(
    head: list[str], counter: str, tail: list[str], n: int, loc: str | None, at: datetime
) -> None:
    text = "".join(head) + counter + "".join(tail)
    try:
        fmt = parse_format(text)
    except ValidationError:
        return
    try:
        number = render(fmt, n, at, loc)
    except Conflict:
        assert n > fmt.max_counter
        return
    assert _SAFE.match(number), number
    assert len(number) <= NUMBER_MAX


@given(
    st.lists(st.one_of(literal, tokens), max_size=4),
    counters,
    st.lists(st.one_of(literal, tokens), max_size=4),
    st.integers(min_value=1, max_value=10**9),
    st.integers(min_value=1, max_value=10**9),
    st.one_of(st.none(), st.text(alphabet="ABCDEF0123456789", min_size=1, max_size=6)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(9999, 12, 31)),
)
def test_distinct_counters_never_give_the_same_number(
    head: list[str], counter: str, tail: list[str], a: int, b: int, loc: str | None,
    at: datetime,
) -> None:  # fmt: skip
    """Within one format, date and location the counter alone tells numbers apart (the
    service keeps one counter per format and skips numbers already taken across them)."""
    assume(a != b)
    try:
        fmt = parse_format("".join(head) + counter + "".join(tail))
    except ValidationError:
        return
    assume(max(a, b) <= fmt.max_counter)
    assert render(fmt, a, at, loc) != render(fmt, b, at, loc)
    assert default_number(a) != default_number(b)


@given(st.integers(min_value=1, max_value=10**12))
def test_default_numbers(n: int) -> None:
    number = default_number(n)
    assert _SAFE.match(number)
    assert number == f"INV-{n:06d}"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("INV-{NNN}", "unknown token"),
        ("INV-{YYYY}", "exactly one counter"),
        ("{####}{###}", "exactly one counter"),
        ("INV/{####}", "literal text"),
        ("LONGPREFIX-{LOC}-{#####}", "could produce 23 characters"),
        ("INV-{####", "unmatched"),
    ],
)
def test_bad_formats_are_refused(text: str, reason: str) -> None:
    with pytest.raises(ValidationError) as refused:
        parse_format(text)
    assert reason in refused.value.detail


def test_rendering_tokens() -> None:
    fmt = parse_format("{LOC}-{YYYY}{MM}-{####}")
    at = datetime(2025, 3, 14)
    assert render(fmt, 7, at, "NYC") == "NYC-202503-0007"
    assert render(fmt, 7, at, None) == "202503-0007"
    assert render(parse_format("A-{LOC}-{###}"), 1, at, None) == "A-001"
    assert render(parse_format("A{LOC}{###}"), 1, at, "") == "A001"
    assert render(parse_format("I{YY}.{###}"), 12, at, None) == "I25.012"
    with pytest.raises(Conflict):
        render(fmt, 10000, at, None)


# --- embedding -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        "http://shop.example",
        "https://shop.example/pay",
        "https://*.shop.example",
        "https://shop.example?x=1",
        "https://user@shop.example",
        "https://10.0.0.1",
        "shop.example",
        "https://shop",
    ],
)
def test_bad_origins_are_refused(bad: str) -> None:
    with pytest.raises(ValidationError):
        clean_origin(bad)


def test_origins_are_normalised_and_limited() -> None:
    assert clean_origin(" https://Shop.Example/ ") == "https://shop.example"
    assert clean_origin("https://shop.example:443") == "https://shop.example"
    assert clean_origin("https://shop.example:8443") == "https://shop.example:8443"
    ten = [f"https://s{i}.example" for i in range(10)]
    assert len(change_origins((), add=ten)) == 10
    with pytest.raises(ValidationError):
        change_origins(ten, add=["https://eleven.example"])
    assert change_origins(ten, remove=["https://s0.example"], add=["https://x.example"])[-1] == (
        "https://x.example"
    )
    assert change_origins(ten, clear=True) == ()
