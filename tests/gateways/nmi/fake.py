"""An in-memory fake of NMI's classic Payment API and Query API, for ``httpx.MockTransport``.

Written from NMI's public reference (https://docs.nmi.com/reference/process.md and
https://docs.nmi.com/reference/query.md), not from the adapter:

- ``POST https://{sandbox,secure}.nmi.com/api/transact.php`` and ``.../api/query.php``,
  form-encoded, authenticated by the ``security_key`` field. A wrong key, or an account
  used on the other environment's host, answers HTTP 200 with ``response=3`` and
  ``responsetext=Authentication Failed`` (the Query API: ``<error_response>``).
- ``transact.php`` answers a URL-encoded query string (``response``, ``responsetext``,
  ``authcode``, ``transactionid``, ``avsresponse``, ``cvvresponse``, ``orderid``,
  ``type``, ``response_code`` and ``customer_vault_id`` when one was used).
- Types: ``sale``, ``auth``, ``capture`` (at most the authorized amount, once),
  ``void`` (before settlement), ``refund`` (up to what is left; a new transaction), and
  ``customer_vault=add_customer``. Check transactions must be refunded and voided with
  ``payment=check``, otherwise NMI does not find them (modelled on the documented
  ``payment`` field of refund and void).
- Duplicate checking: a sale or auth with the same payment method, amount and currency
  as an approved one within ``dup_seconds`` (default 1200; 0 disables) is refused with
  ``response=3``, ``response_code=300`` and "Duplicate transaction REFID:…" — NMI has
  no replay. ``orderid`` joins the comparison only when ``dup_includes_orderid`` is set
  (the merchant option "Include Order ID when performing Duplicate Transaction check").
  The duplicate check runs before the token is spent-checked.
- Test mode: amounts below 1.00 are declined (NMI's documented test trigger).
- Query API: ``transaction_id``, ``order_id`` or ``report_type=customer_vault`` with
  ``customer_vault_id``; ``<nm_response>`` XML with each transaction's ``condition``
  (``pending`` auth, ``pendingsettlement``, ``complete`` once ``settle()`` ran,
  ``canceled``, ``failed``) and ``<action>`` history.

Test tokens (Collect.js tokens are single use: a second use is "Invalid Payment Token"):

- ``tok_visa``: Visa 4111 1111 1111 1111, exp 10/30, approved
- ``tok_mastercard``: Mastercard 5431 1111 1111 1111, exp 04/31, approved
- ``tok_decline``: declined, code 200 "DECLINE"
- ``tok_do_not_honor``: declined, code 201
- ``tok_insufficient``: declined, code 202 "Insufficient funds"
- ``tok_expired``: declined, code 223 "Expired card"
- ``tok_cvv``: declined, code 225 "Invalid card security code"
- ``tok_stolen``: declined, code 252 "Stolen card"
- ``tok_processor_error``: ``response=3``, code 400 "Transaction error returned by processor"
- ``tok_check``: checking account, routing 123123123, account …6789, approved
- anything else: ``response=3``, "Invalid Payment Token"

Knobs for tests: ``fail_next(status, path=None)`` answers the next request (to ``path``)
with that HTTP status; ``timeout_next(after_processing=..., path=None)`` raises
``httpx.ReadTimeout`` for the next request (to ``path``), before or after it took
effect; ``advance(seconds)`` moves the duplicate-check clock; ``settle()`` settles
everything pending settlement; ``requests`` records what came in.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from urllib.parse import parse_qsl, urlencode
from xml.sax.saxutils import escape

import attrs
import httpx

SECURITY_KEY = "fake-nmi-security-key-0123456789"
SANDBOX_HOST = "sandbox.nmi.com"
LIVE_HOST = "secure.nmi.com"
_AMOUNT = re.compile(r"^\d{1,10}(\.\d{1,3})?$")


@attrs.frozen
class Card:
    number: str
    exp: str  # MMYY
    brand: str


@attrs.frozen
class Check:
    routing: str
    account: str
    name: str = "Test Account"


@attrs.frozen
class Outcome:
    response: str = "1"
    code: str = "100"
    text: str = "SUCCESS"


_VISA = Card("4111111111111111", "1030", "Visa")
_MASTERCARD = Card("5431111111111111", "0431", "Mastercard")
_DECLINE_CARD = Card("4000000000000002", "1030", "Visa")

TOKENS: dict[str, tuple[Card | Check, Outcome]] = {
    "tok_visa": (_VISA, Outcome()),
    "tok_mastercard": (_MASTERCARD, Outcome()),
    "tok_decline": (_DECLINE_CARD, Outcome("2", "200", "DECLINE")),
    "tok_do_not_honor": (_DECLINE_CARD, Outcome("2", "201", "Do Not Honor")),
    "tok_insufficient": (_DECLINE_CARD, Outcome("2", "202", "Insufficient funds")),
    "tok_expired": (_DECLINE_CARD, Outcome("2", "223", "Expired card")),
    "tok_cvv": (_DECLINE_CARD, Outcome("2", "225", "Invalid card security code")),
    "tok_stolen": (_DECLINE_CARD, Outcome("2", "252", "Stolen card")),
    "tok_processor_error": (
        _DECLINE_CARD,
        Outcome("3", "400", "Transaction error returned by processor"),
    ),
    "tok_check": (Check("123123123", "000123456789"), Outcome()),
}


@attrs.define
class Action:
    kind: str
    amount: Decimal
    success: bool
    code: str
    text: str
    at: int


@attrs.define
class Txn:
    id: str
    method: Card | Check
    condition: str
    order_id: str
    currency: str
    actions: list[Action]

    @property
    def transaction_type(self) -> str:
        return "ck" if isinstance(self.method, Check) else "cc"

    def total(self, kind: str) -> Decimal:
        return sum((a.amount for a in self.actions if a.success and a.kind == kind), Decimal(0))


@attrs.define
class FakeNmi:
    """NMI's API in memory: one merchant account (sandbox or live) and its transactions."""

    security_key: str = SECURITY_KEY
    sandbox: bool = True
    dup_includes_orderid: bool = False
    requests: list[tuple[httpx.URL, dict[str, str]]] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    vault: dict[str, Card | Check] = attrs.field(factory=dict)
    spent_tokens: set[str] = attrs.field(factory=set)
    clock: int = 0
    _next_id: int = 10_000_000_001
    _next_vault: int = 2_100_000_001
    _fail: tuple[int, str | None] | None = None  # HTTP status, and the path it waits for
    _timeout: tuple[str, str | None] | None = None  # "before"/"after" processing, and path

    # --- knobs ------------------------------------------------------------------------

    def fail_next(self, status: int = 500, path: str | None = None) -> None:
        """Answer the next request (to ``path``, when given) with this HTTP status."""
        self._fail = (status, path)

    def timeout_next(self, after_processing: bool = False, path: str | None = None) -> None:
        """Time out the next request (to ``path``), before or after it took effect."""
        self._timeout = ("after" if after_processing else "before", path)

    def advance(self, seconds: int) -> None:
        self.clock += seconds

    def settle(self) -> None:
        for txn in self.transactions.values():
            if txn.condition == "pendingsettlement":
                txn.condition = "complete"
                amount = txn.total("sale") + txn.total("capture")
                txn.actions.append(Action("settle", amount, True, "100", "", self.clock))

    def sent(self, path: str = "/api/transact.php") -> list[dict[str, str]]:
        """The forms posted to ``path``, oldest first."""
        return [form for url, form in self.requests if url.path == path]

    # --- transport --------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        form = dict(parse_qsl(request.content.decode(), keep_blank_values=True))
        self.requests.append((request.url, form))
        path = request.url.path
        if self._timeout and self._timeout[0] == "before" and self._timeout[1] in (None, path):
            self._timeout = None
            raise httpx.ReadTimeout("fake NMI timed out", request=request)
        if self._fail and self._fail[1] in (None, path):
            status, self._fail = self._fail[0], None
            return httpx.Response(status, text="<html>Internal Server Error</html>")
        if request.method != "POST":
            return httpx.Response(405)
        if request.url.host not in (SANDBOX_HOST, LIVE_HOST):
            return httpx.Response(404)
        content_type = request.headers.get("content-type", "")
        if not content_type.startswith("application/x-www-form-urlencoded"):
            form = {}
        authenticated = form.get("security_key") == self.security_key and (
            request.url.host == (SANDBOX_HOST if self.sandbox else LIVE_HOST)
        )
        if request.url.path == "/api/transact.php":
            reply = self._transact(form) if authenticated else _error("Authentication Failed")
            response = httpx.Response(200, text=urlencode(reply))
        elif request.url.path == "/api/query.php":
            body = self._query(form) if authenticated else _query_error("Authentication Failed")
            response = httpx.Response(200, text=body, headers={"content-type": "text/xml"})
        else:
            return httpx.Response(404)
        if self._timeout and self._timeout[0] == "after" and self._timeout[1] in (None, path):
            self._timeout = None
            raise httpx.ReadTimeout("fake NMI timed out after processing", request=request)
        return response

    # --- transact.php -----------------------------------------------------------------

    def _transact(self, form: dict[str, str]) -> dict[str, str]:
        if form.get("customer_vault") == "add_customer":
            return self._add_customer(form)
        kind = form.get("type", "")
        if kind in ("sale", "auth"):
            return self._sale(form, kind)
        if kind == "capture":
            return self._capture(form)
        if kind == "void":
            return self._void(form)
        if kind == "refund":
            return self._refund(form)
        return _error("Invalid Transaction Type REFID:1", kind=kind)

    def _sale(self, form: dict[str, str], kind: str) -> dict[str, str]:
        amount = _amount(form.get("amount"))
        if amount is None or amount <= 0:
            return _error("Invalid amount REFID:2", kind=kind)
        currency = form.get("currency", "USD")
        if not re.fullmatch(r"[A-Z]{3}", currency):
            return _error("Invalid currency REFID:3", kind=kind)
        order_id = form.get("orderid", "")
        token, vault_id = form.get("payment_token"), form.get("customer_vault_id")
        resolved = self._method_of(token, vault_id)
        if isinstance(resolved, str):
            return _error(resolved, kind=kind, order_id=order_id)
        method, outcome = resolved
        is_check = isinstance(method, Check)
        if (form.get("payment", "creditcard") == "check") != is_check:
            return _error("Invalid payment type REFID:7", kind=kind, order_id=order_id)
        if is_check and kind == "auth":
            return _error("Check transactions cannot be authorized REFID:8", kind=kind)
        duplicate = self._duplicate_of(method, amount, currency, order_id, form)
        if duplicate is not None:
            return _error(f"Duplicate transaction REFID:{duplicate}", kind=kind, order_id=order_id)
        if token:
            if token in self.spent_tokens:
                return _error("Invalid Payment Token REFID:9", kind=kind, order_id=order_id)
            self.spent_tokens.add(token)
        if outcome.response == "1" and amount < 1:
            outcome = Outcome("2", "200", "DECLINE")  # test mode: under 1.00 declines
        approved = outcome.response == "1"
        txn = Txn(
            id=self._new_id(),
            method=method,
            condition=("pending" if kind == "auth" else "pendingsettlement")
            if approved
            else "failed",
            order_id=order_id,
            currency=currency,
            actions=[Action(kind, amount, approved, outcome.code, outcome.text, self.clock)],
        )
        self.transactions[txn.id] = txn
        reply = {
            "response": outcome.response,
            "responsetext": outcome.text,
            "authcode": "123456" if approved else "",
            "transactionid": txn.id,
            "avsresponse": "",
            "cvvresponse": "M" if approved and not is_check else "",
            "orderid": order_id,
            "type": kind,
            "response_code": outcome.code,
        }
        if vault_id:
            reply["customer_vault_id"] = vault_id
        return reply

    def _method_of(
        self, token: str | None, vault_id: str | None
    ) -> tuple[Card | Check, Outcome] | str:
        """The payment method a sale names, or NMI's error text."""
        if token:
            return TOKENS.get(token) or "Invalid Payment Token REFID:4"
        if vault_id:
            found = self.vault.get(vault_id)
            return (found, Outcome()) if found else "Invalid Customer Vault Id REFID:5"
        return "Payment Information Required REFID:6"

    def _duplicate_of(
        self,
        method: Card | Check,
        amount: Decimal,
        currency: str,
        order_id: str,
        form: dict[str, str],
    ) -> str | None:
        window = int(form.get("dup_seconds") or 1200)
        if window <= 0:
            return None
        for txn in self.transactions.values():
            first = txn.actions[0]
            if (
                first.kind in ("sale", "auth")
                and first.success
                and txn.method == method
                and first.amount == amount
                and txn.currency == currency
                and self.clock - first.at < window
                and (not self.dup_includes_orderid or txn.order_id == order_id)
            ):
                return str(900_000_000 + len(self.requests))
        return None

    def _found(self, form: dict[str, str], kind: str) -> Txn | dict[str, str]:
        txn = self.transactions.get(form.get("transactionid", ""))
        is_check = form.get("payment", "creditcard") == "check"
        if txn is None or (txn.transaction_type == "ck") != is_check:
            return _error("Transaction not found REFID:10", kind=kind)
        return txn

    def _capture(self, form: dict[str, str]) -> dict[str, str]:
        txn = self._found(form, "capture")
        if isinstance(txn, dict):
            return txn
        amount = _amount(form.get("amount"))
        authorized = txn.actions[0]
        if txn.condition != "pending" or authorized.kind != "auth":
            return _error("A capture requires that the existing transaction be an AUTH", "capture")
        if amount is None or amount <= 0 or amount > authorized.amount:
            return _error("Capture amount exceeds the authorized amount REFID:11", "capture")
        txn.condition = "pendingsettlement"
        txn.actions.append(Action("capture", amount, True, "100", "SUCCESS", self.clock))
        return _ok(txn, "capture")

    def _void(self, form: dict[str, str]) -> dict[str, str]:
        txn = self._found(form, "void")
        if isinstance(txn, dict):
            return txn
        if txn.condition not in ("pending", "pendingsettlement"):
            return _error("Only transactions pending settlement can be voided REFID:12", "void")
        txn.condition = "canceled"
        txn.actions.append(Action("void", txn.actions[0].amount, True, "100", "", self.clock))
        return _ok(txn, "void", "Transaction Void Successful")

    def _refund(self, form: dict[str, str]) -> dict[str, str]:
        txn = self._found(form, "refund")
        if isinstance(txn, dict):
            return txn
        if txn.condition not in ("pendingsettlement", "complete"):
            return _error("Transaction cannot be refunded REFID:13", "refund")
        left = txn.total("sale") + txn.total("capture") - txn.total("refund")
        amount = _amount(form.get("amount")) if form.get("amount") else left
        if amount is None or amount <= 0 or amount > left:
            return _error("Refund amount may not exceed the transaction balance REFID:14", "refund")
        txn.actions.append(Action("refund", amount, True, "100", "SUCCESS", self.clock))
        refund = Txn(
            id=self._new_id(),
            method=txn.method,
            condition="pendingsettlement",
            order_id=txn.order_id,
            currency=txn.currency,
            actions=[Action("refund", amount, True, "100", "SUCCESS", self.clock)],
        )
        self.transactions[refund.id] = refund
        return _ok(refund, "refund")

    def _add_customer(self, form: dict[str, str]) -> dict[str, str]:
        token = form.get("payment_token", "")
        found = TOKENS.get(token)
        if not token or found is None or token in self.spent_tokens:
            return _error("Invalid Payment Token REFID:15", kind="")
        self.spent_tokens.add(token)
        vault_id = str(self._next_vault)
        self._next_vault += 1
        self.vault[vault_id] = found[0]
        reply = _ok(None, "", "Customer Added")
        reply["customer_vault_id"] = vault_id
        return reply

    def _new_id(self) -> str:
        self._next_id += 1
        return str(self._next_id)

    # --- query.php --------------------------------------------------------------------

    def _query(self, form: dict[str, str]) -> str:
        if form.get("report_type") == "customer_vault":
            vault_id = form.get("customer_vault_id", "")
            ids = [vault_id] if vault_id else list(self.vault)
            customers = "".join(_customer_xml(i, self.vault[i]) for i in ids if i in self.vault)
            return _xml(f"<customer_vault>{customers}</customer_vault>")
        if form.get("report_type"):
            return _query_error("Invalid report_type")
        wanted_id, wanted_order = form.get("transaction_id"), form.get("order_id")
        if not wanted_id and not wanted_order:
            return _query_error("No search criteria")
        found = [
            txn
            for txn in self.transactions.values()
            if (not wanted_id or txn.id == wanted_id)
            and (not wanted_order or txn.order_id == wanted_order)
        ]
        return _xml("".join(_transaction_xml(t) for t in found))


# --- wire shapes ------------------------------------------------------------------------


def _amount(text: str | None) -> Decimal | None:
    if text is None or not _AMOUNT.match(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _error(text: str, kind: str = "sale", order_id: str = "") -> dict[str, str]:
    return {
        "response": "3",
        "responsetext": text,
        "authcode": "",
        "transactionid": "",
        "avsresponse": "",
        "cvvresponse": "",
        "orderid": order_id,
        "type": kind,
        "response_code": "300",
    }


def _ok(txn: Txn | None, kind: str, text: str = "SUCCESS") -> dict[str, str]:
    return {
        "response": "1",
        "responsetext": text,
        "authcode": "123456" if txn else "",
        "transactionid": txn.id if txn else "",
        "avsresponse": "",
        "cvvresponse": "",
        "orderid": txn.order_id if txn else "",
        "type": kind,
        "response_code": "100",
    }


def _xml(inner: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<nm_response>{inner}</nm_response>'


def _query_error(text: str) -> str:
    return _xml(f"<error_response>{escape(text)}</error_response>")


def _masked(number: str) -> str:
    return number[0] + "x" * (len(number) - 5) + number[-4:]


def _transaction_xml(txn: Txn) -> str:
    method = txn.method
    if isinstance(method, Card):
        details = f"<cc_number>{_masked(method.number)}</cc_number><cc_exp>{method.exp}</cc_exp>"
    else:
        details = f"<check_account>{_masked(method.account)}</check_account>"
    actions = "".join(
        "<action>"
        f"<amount>{a.amount}</amount><action_type>{a.kind}</action_type>"
        f"<date>{20251123120000 + a.at}</date><success>{int(a.success)}</success>"
        f"<response_text>{escape(a.text)}</response_text><response_code>{a.code}</response_code>"
        "</action>"
        for a in txn.actions
    )
    return (
        f"<transaction><transaction_id>{txn.id}</transaction_id>"
        f"<transaction_type>{txn.transaction_type}</transaction_type>"
        f"<condition>{txn.condition}</condition><order_id>{escape(txn.order_id)}</order_id>"
        f"<currency>{txn.currency}</currency>{details}{actions}</transaction>"
    )


def _customer_xml(vault_id: str, method: Card | Check) -> str:
    if isinstance(method, Card):
        details = (
            f"<cc_number>{_masked(method.number)}</cc_number><cc_exp>{method.exp}</cc_exp>"
            f"<cc_type>{method.brand}</cc_type><cc_bin>{method.number[:6]}</cc_bin>"
        )
    else:
        details = (
            f"<check_name>{escape(method.name)}</check_name><check_aba>{method.routing}</check_aba>"
            f"<check_account>{_masked(method.account)}</check_account>"
            "<account_type>checking</account_type><sec_code>WEB</sec_code>"
        )
    return (
        f'<customer id="{vault_id}"><customer_vault_id>{vault_id}</customer_vault_id>'
        f"{details}</customer>"
    )
