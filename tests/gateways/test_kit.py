"""The gateway kit: one redaction policy, one decline table, one way to read answers."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import (
    credentials_rejected,
    json_object,
    json_value,
    require_text,
    unexpected,
    xml_root,
)
from payhub.adapters.gateways.kit.redaction import (
    MAX_TEXT,
    REDACTED,
    bounded_id,
    hide_in,
    hide_values,
    redact,
)
from payhub.adapters.gateways.registry import FOLDERS
from payhub.domain.payments import DECLINE_CODES, GatewayCredentialsRejected, GatewayError

# What the policy promises never to let through, written independently of the kit's regexes.
_CARD_RUN = re.compile(r"\d(?:[ -]?\d){11,}")
_WORDS = re.compile(r"[A-Za-z0-9_\-]+")


def token_like(word: str) -> bool:
    mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
    return len(word) >= 32 or (len(word) >= 12 and mixed)


card_numbers = st.text("0123456789", min_size=12, max_size=19)
separated_cards = st.lists(st.text("0123456789", min_size=4, max_size=4), min_size=3, max_size=5)
tokens = st.text(string.ascii_letters + string.digits + "_-", min_size=12, max_size=60).filter(
    token_like
)
secrets = st.text(string.ascii_letters + string.digits, min_size=4, max_size=40).filter(
    lambda s: any(c.isdigit() for c in s)
)
prose = st.text(st.characters(codec="utf-8"), max_size=300)
pieces = st.one_of(
    prose,
    card_numbers,
    separated_cards.map(" ".join),
    separated_cards.map("-".join),
    tokens,
    st.sampled_from(["Declined: ", "\n\t", " ", "card ", "CVV2 mismatch"]),
)


@given(parts=st.lists(pieces, max_size=12), hidden=st.lists(secrets, max_size=3))
def test_redacted_text_is_short_and_carries_no_card_token_or_secret(
    parts: list[str], hidden: list[str]
) -> None:
    text = "".join(parts) + "".join(hidden)
    shown = redact(text, hidden)

    assert shown is None or 0 < len(shown) <= MAX_TEXT
    shown = shown or ""
    assert not _CARD_RUN.search(shown)
    assert not [w for w in _WORDS.findall(shown) if token_like(w)]
    for secret in hidden:
        assert secret not in shown
    assert shown.isprintable()


def test_redaction_keeps_the_gateways_words() -> None:
    assert (
        redact("Transaction Declined:  DECLINED CVV\n(N7)")
        == "Transaction Declined: DECLINED CVV (N7)"
    )
    assert redact("card 4111 1111 1111 1111 refused") == f"card {REDACTED} refused"
    assert redact("token tok_1Nv8fK2eZvKYlo2C invalid") == f"token {REDACTED} invalid"
    assert (
        redact("bad key sk_abcdefghijklmnop", hide=["sk_abcdefghijklmnop"]) == f"bad key {REDACTED}"
    )
    assert redact("") is None
    assert redact(None) is None
    assert redact(42) is None
    long = redact("word " * 100)
    assert long is not None
    assert len(long) == MAX_TEXT
    assert long.endswith("…")


def test_hiding_in_a_whole_answer_keeps_ids_but_not_secrets() -> None:
    answer = {"id": "txn_1234567890abcdef", "echo": ["secret-key-1", {"x": "a secret-key-1 b"}]}
    assert hide_in(answer, ["secret-key-1", None]) == {
        "id": "txn_1234567890abcdef",
        "echo": [REDACTED, {"x": f"a {REDACTED} b"}],
    }
    assert hide_values("k=abcd&t=ab", ["abcd", "ab"]) == f"k={REDACTED}&t=ab"


def test_ids_for_support_are_bounded_printable_text() -> None:
    assert bounded_id("abc\x00def") == "abcdef"
    assert bounded_id(12345) == "12345"
    assert bounded_id(True) is None
    assert bounded_id("x" * 500) == "x" * 100


# --- declines ----------------------------------------------------------------------------


def test_every_table_entry_is_a_payhub_decline_code() -> None:
    assert set(declines.ISO_8583.values()) <= set(DECLINE_CODES)
    assert {code for _, code in declines.WORDS} <= set(DECLINE_CODES)


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        ("51", "", "insufficient_funds"),
        ("54", "", "expired_card"),
        ("N7", "", "incorrect_cvc"),
        ("n7", "", "incorrect_cvc"),
        ("43", "", "fraudulent"),
        ("96", "", "processing_error"),
        ("05", "", "generic_decline"),
        (None, "DECLINED CVV2 MISMATCH", "incorrect_cvc"),
        (None, "Insufficient funds", "insufficient_funds"),
        (None, "Card expired", "expired_card"),
        (None, "PICK UP CARD", "fraudulent"),
        (None, "System error, retry", "processing_error"),
        (None, "Do not honor", "generic_decline"),
        ("05", "insufficient funds", "insufficient_funds"),  # an unknown code falls to the text
        ("51", "CVV mismatch", "insufficient_funds"),  # a known code wins over the text
    ],
)
def test_decline_codes_from_iso_8583_codes_then_words(
    code: str | None, text: str, expected: str
) -> None:
    assert declines.decline_code(code, text) == expected


def test_a_gateways_overlay_and_words_come_first() -> None:
    assert (
        declines.decline_code("U85", overlay={"U85": "insufficient_funds"}) == "insufficient_funds"
    )
    assert declines.decline_code("80", overlay={"80": "expired_card"}) == "expired_card"
    assert declines.decline_code("80") == "generic_decline"
    words: declines.Words = ((("HOLD-CALL",), "fraudulent"),)
    assert declines.decline_code(text="HOLD-CALL", extra_words=words) == "fraudulent"


@given(st.one_of(st.none(), st.integers(), st.text(max_size=20)), st.one_of(st.none(), st.text()))
def test_any_input_gives_a_payhub_decline_code(code: object, text: object) -> None:
    assert declines.decline_code(code, text) in DECLINE_CODES


# --- answers -----------------------------------------------------------------------------


def test_json_answers_keep_decimals_exact_and_refuse_other_shapes() -> None:
    assert json_value(b'{"amount": 10.10}') == {"amount": __import__("decimal").Decimal("10.10")}
    assert json_value(b"") is None
    assert json_value(b"<html>") is None
    assert json_object(b'{"a": 1}', "stax") == {"a": 1}
    with pytest.raises(GatewayError, match="Stax answered in an unexpected shape"):
        json_object(b"[1]", "stax")


def test_unexpected_answers_name_the_gateway_and_never_the_body() -> None:
    error = unexpected("heartland", "req-1")
    assert str(error) == "Heartland answered in an unexpected shape"
    assert error.gateway_request_id == "req-1"
    assert str(unexpected("usaepay")) == "USAePay answered in an unexpected shape"
    with pytest.raises(GatewayError, match="Clover answered"):
        require_text({"id": 5}, "id", "clover")
    assert require_text({"id": "ch_1"}, "id", "clover") == "ch_1"


def test_rejected_credentials_say_where_to_fix_them() -> None:
    error = credentials_rejected("helcim", what="API token", gateway_message="no")
    assert isinstance(error, GatewayCredentialsRejected)
    assert "update it with PUT /api/merchant-accounts/{ref}/credentials/helcim" in str(error)
    assert "update them with" in str(credentials_rejected("nmi"))


def test_xml_answers_with_a_dtd_or_entities_are_refused_unread() -> None:
    assert xml_root(b"<txn><a>1</a></txn>", "elavon").tag == "txn"
    bomb = b'<!DOCTYPE x [<!ENTITY a "aaaa">]><txn>&a;</txn>'
    with pytest.raises(GatewayError, match="unexpected shape"):
        xml_root(bomb, "elavon")
    with pytest.raises(GatewayError, match="unexpected shape"):
        xml_root(b"<txn>", "elavon")


# --- the adapters on the kit keep no copies ---------------------------------------------------

# Every gateway's adapter (the simulator answers in process and sends nothing).
ON_THE_KIT = tuple(name for name in FOLDERS if name != "simulator")


@pytest.mark.parametrize("module", ON_THE_KIT)
def test_adapters_on_the_kit_keep_no_copies_and_send_through_gateway_http(module: str) -> None:
    """No adapter keeps its own redaction, ISO 8583 table, answer reading or sending."""
    import ast
    import importlib
    import inspect

    adapter = importlib.import_module(f"payhub.adapters.gateways.{module}.adapter")
    source = inspect.getsource(adapter)
    tree = ast.parse(source)
    functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert not functions & {"_scrub", "_error_from_status"}, "use kit.redaction"
    assigned = {
        t.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    tables = {"_TOKEN_LIKE", "_LONG_TOKEN", "_REDACTED", "_WORDS", "_DECLINE_WORDS"} & assigned
    if module == "stax":  # its own decline texts, checked before the kit's words
        tables -= {"_DECLINE_WORDS"}
    assert not tables, f"use the kit instead of {sorted(tables)}"
    iso_tables = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Dict)
        and {"51", "54"} <= {k.value for k in n.keys if isinstance(k, ast.Constant)}
    ]
    assert not iso_tables, "use kit.declines' ISO 8583 table (an overlay for own codes)"
    assert '"[redacted]"' not in source, "use kit.redaction"
    assert "response.json()" not in source, "read answers with kit.answers"
    assert "json.loads(response" not in source, "read answers with kit.answers"
    assert "httpx.TimeoutException" not in source, "send through GatewayHttp"
    assert ".client.request(" not in source, "send through GatewayHttp"
    assert "GatewayHttp(" in source


def test_redact_blanks_the_id_shapes_a_gateway_names() -> None:
    import re

    stripe_ids = re.compile(r"\b(?:pm|tok)_[A-Za-z0-9_*]+")
    text = "No such PaymentMethod: 'pm_card_visa'"

    assert redact(text) == text  # too plain to look like a token by itself
    assert redact(text, ids=(stripe_ids,)) == "No such PaymentMethod: '[redacted]'"
