"""NMI, through its classic Payment API (``transact.php``) and Query API (``query.php``).

Why the classic API: Collect.js tokens (cards and checks) are charged there, and it is
the API NMI documents field by field; the newer JSON ``/api/v5/payments`` API was not
checked. Every call is a form-encoded POST carrying ``security_key`` (the merchant's
``apiSecret``). ``transact.php`` answers a URL-encoded query string: ``response`` 1
approved, 2 declined, 3 error, with ``response_code`` (100 approved, 2xx issuer
declines, 300 rejected by the gateway, 4xx processor errors) and ``responsetext``.
NMI answers HTTP 200 even for a wrong key ("Authentication Failed" in the body), so
credentials are judged from the body too. ``query.php`` answers ``<nm_response>`` XML.

Hosts: sandbox accounts only work on ``sandbox.nmi.com``, live ones on
``secure.nmi.com``. A sandbox account is always in test mode, so ``test_mode`` is
never sent.

Idempotency: NMI has no idempotency key, only duplicate checking: a sale or auth that
repeats one within ``dup_seconds`` (same payment method and amount, plus ``orderid``
when the merchant enables "Include Order ID when performing Duplicate Transaction
check") is rejected with response code 300, "Duplicate transaction". payhub sends its
idempotency key as ``orderid`` (hashed to 36 characters when longer; NMI documents no
limit, and 36-character UUIDs are common there) with ``dup_seconds``. When that
rejection comes back, or a single-use token turns out to be spent, ``lookup`` finds
the earlier charge by ``order_id`` in the Query API and returns it, so a retry after a
crash gets the original answer instead of a second charge. Captures are naturally
safe (an auth captures once); refunds and saves have no gateway-side guard, so
payhub's own idempotency must cover them.

Vault: a Customer Vault record holds one payment method, so its ``customer_vault_id``
is the method reference (and, for a customer's first method, the gateway customer
reference too). Sales on it send ``customer_vault_id`` alone. The add answer carries no
card details, so a Query API ``customer_vault`` report supplies brand, last 4 and expiry.

ACH: Collect.js tokenizes checks too; payhub sends ``payment=check`` and
``sec_code=WEB``, never account numbers. A check can only be sold (no authorization,
no capture), and refunds and voids must say ``payment=check``, so they first ask the
Query API which kind of transaction the reference is.

References:
- https://docs.nmi.com/reference/process.md (Payment API (Classic): variables, responses, codes)
- https://docs.nmi.com/reference/query.md (Query API (Classic): sandbox host, XML report)
- https://docs.nmi.com/docs/customer-vault
- https://docs.nmi.com/docs/using-for-transactions (sale on a ``customer_vault_id``)
- https://docs.nmi.com/docs/integration-guide-implement-backend (sale on a ``payment_token``)
- https://docs.nmi.com/docs/integration-guide-test-and-deploy (sandbox is in test mode)
- https://docs.nmi.com/docs/payment-migration-playbook.md (classic endpoint vs v5)
"""

from __future__ import annotations

import hashlib
from decimal import Decimal, InvalidOperation
from urllib.parse import parse_qs

# NMI's XML is parsed with the standard library: it comes from the gateway over TLS,
# never from users, and defusedxml is not a dependency. Python's expat refuses
# external entities and caps entity expansion, which covers what remains.
from xml.etree import ElementTree as ET

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import unexpected, xml_root
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import hide_values, redact
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayResult,
    GatewayStatus,
    GatewayTimeout,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)

LIVE_HOST = "https://secure.nmi.com"
SANDBOX_HOST = "https://sandbox.nmi.com"
TRANSACT_PATH = "/api/transact.php"
QUERY_PATH = "/api/query.php"

ORDERID_MAX = 36
MAX_DUP_SECONDS = 7_862_400  # NMI: dup_seconds "should not exceed 7862400"

# NMI response_code -> payhub decline code; any other code is a generic decline.
_DECLINE_CODES = {
    "202": "insufficient_funds",  # insufficient funds
    "203": "insufficient_funds",  # over limit
    "223": "expired_card",
    "224": "expired_card",  # invalid expiration date
    "225": "incorrect_cvc",
    "250": "fraudulent",  # pick up card
    "251": "fraudulent",  # lost card
    "252": "fraudulent",  # stolen card
    "253": "fraudulent",  # fraudulent card
}
_COMMUNICATION_ERRORS = {"420", "421"}  # communication error (with the issuer)
_SENSITIVE_FIELDS = ("security_key", "payment_token")
_BRANDS = {
    "visa": "visa",
    "mastercard": "mastercard",
    "mc": "mastercard",
    "amex": "amex",
    "americanexpress": "amex",
    "discover": "discover",
    "diners": "diners",
    "dinersclub": "diners",
    "jcb": "jcb",
    "maestro": "maestro",
}
_CREDENTIALS_REJECTED = "update them with PUT /api/merchant-accounts/{ref}/credentials/nmi"


def base_url(sandbox: bool) -> str:
    """The host a merchant's account lives on: sandbox accounts cannot use the live one."""
    return SANDBOX_HOST if sandbox else LIVE_HOST


def order_id_for(idempotency_key: str) -> str:
    """The ``orderid`` that carries payhub's idempotency key (stable, at most 36 characters)."""
    if 0 < len(idempotency_key) <= ORDERID_MAX and idempotency_key.isascii():
        return idempotency_key
    return "ph" + hashlib.sha256(idempotency_key.encode()).hexdigest()[: ORDERID_MAX - 2]


def decimal_amount(money: Money) -> str:
    """NMI's amount: a plain decimal at the currency's precision ("10.05", JPY "1000")."""
    return format(money.amount, "f")


def decline_code(response_code: str) -> str:
    """payhub's decline code for NMI's ``response_code`` (generic when not recognisable)."""
    known = declines.from_iso8583(response_code, _DECLINE_CODES)
    if known:
        return known
    if response_code.startswith("4"):
        return "processing_error"
    return "generic_decline"


@attrs.frozen
class _Reply:
    """One ``transact.php`` answer, with the request's secrets already scrubbed from the text."""

    fields: dict[str, str]

    @property
    def response(self) -> str:
        return self.fields.get("response", "")

    @property
    def code(self) -> str:
        return self.fields.get("response_code", "")

    @property
    def text(self) -> str:
        return self.fields.get("responsetext", "")

    @property
    def transaction_id(self) -> str:
        return self.fields.get("transactionid", "")

    @property
    def approved(self) -> bool:
        return self.response == "1"

    def support(self) -> dict[str, str]:
        keep = ("transactionid", "response_code", "avsresponse", "cvvresponse")
        return {k: self.fields[k][:64] for k in keep if self.fields.get(k)}


@attrs.frozen
class _Action:
    kind: str  # sale, auth, capture, void, refund, credit, settle, check_return, ...
    amount: Decimal
    success: bool


@attrs.frozen
class _Transaction:
    """One ``<transaction>`` of a Query API report."""

    transaction_id: str
    transaction_type: str  # cc or ck
    condition: str
    order_id: str
    currency: str
    actions: tuple[_Action, ...]

    @property
    def is_check(self) -> bool:
        return self.transaction_type == "ck"

    def _total(self, *kinds: str) -> Decimal:
        return sum((a.amount for a in self.actions if a.success and a.kind in kinds), Decimal(0))

    @property
    def first(self) -> _Action | None:
        return next(
            (a for a in self.actions if a.kind in ("sale", "auth", "refund", "credit")), None
        )

    @property
    def charged(self) -> bool:
        first = self.first
        return first is not None and first.success and first.kind in ("sale", "auth")

    def result(self) -> GatewayResult:
        status, amount = self._status()
        return GatewayResult(
            reference=self.transaction_id,
            status=status,
            amount=_money(amount, self.currency or "USD"),  # NMI's default currency
            support={k: v for k, v in (("condition", self.condition),) if v},
        )

    def _status(self) -> tuple[GatewayStatus, Decimal]:
        first = self.first
        if first is None or not first.success or self.condition in ("failed", "abandoned"):
            return GatewayStatus.DECLINED, first.amount if first else Decimal(0)
        if first.kind in ("refund", "credit"):
            return GatewayStatus.REFUNDED, first.amount
        if any(a.success and a.kind.endswith("return") for a in self.actions):
            return GatewayStatus.DECLINED, first.amount  # an ACH debit the bank sent back
        if self.condition == "canceled" or self._total("void") > 0:
            return GatewayStatus.VOIDED, first.amount
        captured = self._total("capture") if first.kind == "auth" else first.amount
        refunded = self._total("refund")
        if captured > 0 and refunded >= captured:
            return GatewayStatus.REFUNDED, refunded
        if first.kind == "auth" and captured == 0:
            pending = self.condition == "pending"
            return (GatewayStatus.AUTHORIZED if pending else GatewayStatus.PENDING), first.amount
        if self.condition in ("pendingsettlement", "pending", "in_progress") and self.is_check:
            return GatewayStatus.SUBMITTED, captured
        if self.condition in ("pendingsettlement", "complete"):
            return GatewayStatus.CAPTURED, captured
        return GatewayStatus.PENDING, captured


@attrs.frozen
class _VaultRecord:
    brand: str | None = None
    last4: str | None = None
    exp_month: int | None = None
    exp_year: int | None = None


class NmiGateway:
    """NMI's classic Payment and Query APIs, spoken in payhub's neutral terms."""

    name = "nmi"
    # NMI's own default window; sent explicitly so a retried charge is caught even when
    # the merchant's account setting differs.
    dup_seconds = 1200

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(self.name, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A sale or an auth from a Collect.js token or a Customer Vault record."""
        source = request.source
        fields = {
            "type": "sale" if request.capture else "auth",
            "amount": decimal_amount(request.amount),
            "currency": request.amount.currency,
            "orderid": order_id_for(request.idempotency_key),
            "dup_seconds": str(min(max(self.dup_seconds, 0), MAX_DUP_SECONDS)),
        }
        if source.method_type is MethodType.BANK_ACCOUNT:
            if not request.capture:
                raise ValueError("NMI cannot authorize a bank account: an ACH debit is a sale")
            fields |= {"payment": "check", "sec_code": "WEB"}
        else:
            fields["payment"] = "creditcard"
        if source.token is not None:
            fields["payment_token"] = source.token
        else:
            fields["customer_vault_id"] = source.saved_method_ref or ""
        if request.description:
            fields["orderdescription"] = request.description[:255]

        reply = self._transact(creds, fields)
        if reply.approved:
            return GatewayResult(
                reference=reply.transaction_id,
                status=_charge_status(source.method_type, request.capture),
                amount=request.amount,
                message=reply.text or None,
                support=reply.support(),
            )
        failure = _failure(reply)
        if _is_duplicate(reply) or (
            isinstance(failure, PaymentMethodInvalid) and source.token is not None
        ):
            # A retry of a charge that went through: NMI refuses it as a duplicate, or the
            # single-use token is already spent. Answer with the original charge. If NMI
            # cannot be asked, the outcome is unknown (timeout, unavailable); if it will not
            # answer (a key without Query API rights), its refusal stands.
            try:
                earlier = self.lookup(creds, request)
            except (GatewayTimeout, GatewayUnavailable):
                raise
            except GatewayError:
                earlier = None
            if earlier is not None:
                return earlier
        raise failure

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find the charge made under this idempotency key (one whose answer was lost)."""
        order_id = order_id_for(request.idempotency_key)
        for txn in self._query(creds, {"order_id": order_id}):
            if txn.order_id == order_id and txn.charged:
                return txn.result()
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Capture all or part of an auth; NMI captures an auth once, so a retry cannot double."""
        reply = self._transact(
            creds,
            {"type": "capture", "transactionid": reference, "amount": decimal_amount(amount)},
        )
        if not reply.approved:
            raise _failure(reply)
        return GatewayResult(
            reference,
            GatewayStatus.CAPTURED,
            amount,
            message=reply.text or None,
            support=reply.support(),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Refund all or part of a sale; the refund is a transaction of its own at NMI."""
        txn = self._transaction(creds, reference)
        fields = {"type": "refund", "transactionid": reference, "amount": decimal_amount(amount)}
        if txn.is_check:
            fields["payment"] = "check"
        reply = self._transact(creds, fields)
        if not reply.approved:
            raise _failure(reply)
        return GatewayResult(
            reply.transaction_id or reference,
            GatewayStatus.REFUNDED,
            amount,
            message=reply.text or None,
            support=reply.support(),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Cancel an auth (or an unsettled sale) before settlement."""
        txn = self._transaction(creds, reference)
        fields = {"type": "void", "transactionid": reference}
        if txn.is_check:
            fields["payment"] = "check"
        reply = self._transact(creds, fields)
        if not reply.approved:
            raise _failure(reply)
        first = txn.first
        released = first.amount if first else Decimal(0)
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            _money(released, txn.currency or "USD"),
            message=reply.text or None,
            support=reply.support(),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """What NMI says now, from the transaction's condition and action history."""
        return self._transaction(creds, reference).result()

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Vault a Collect.js card or check token as a new Customer Vault record."""
        fields = {"customer_vault": "add_customer", "payment_token": request.token}
        if request.email:
            fields["email"] = request.email
        if request.name:
            first, _, last = request.name.strip().rpartition(" ")
            fields |= {"first_name": first or last, "last_name": last if first else ""}
        reply = self._transact(creds, fields)
        if not reply.approved:
            raise _failure(reply)
        vault_id = reply.fields.get("customer_vault_id", "")
        if not vault_id:
            raise GatewayError(
                "NMI saved the payment method but did not say under which Customer Vault id",
                gateway=self.name,
            )
        try:
            shown = self._vault_record(creds, vault_id, request.method_type)
        except GatewayError:
            shown = _VaultRecord()  # saved all the same; only the display details are missing
        return SavedMethod(
            gateway_customer_ref=request.gateway_customer_ref or vault_id,
            method_ref=vault_id,
            method_type=request.method_type,
            brand=shown.brand,
            last4=shown.last4,
            exp_month=shown.exp_month,
            exp_year=shown.exp_year,
        )

    # --- wire --------------------------------------------------------------------------------

    def _post(self, creds: GatewayCredentials, path: str, fields: dict[str, str]) -> str:
        body = {"security_key": creds.api_secret, **fields}
        response = self._http.send("POST", base_url(creds.sandbox) + path, data=body)
        if response.status_code != 200:
            raise GatewayError(f"NMI answered HTTP {response.status_code}", gateway=self.name)
        return _hide_sent_secrets(response.text, body)

    def _transact(self, creds: GatewayCredentials, fields: dict[str, str]) -> _Reply:
        body = {"security_key": creds.api_secret, **fields}
        text = self._post(creds, TRANSACT_PATH, fields)
        pairs = parse_qs(text.strip(), keep_blank_values=True).items()
        # secrets may arrive %-encoded: hidden again after decoding
        parsed = {k: _hide_sent_secrets(v[0], body) for k, v in pairs}
        if parsed.get("response") not in ("1", "2", "3"):
            raise unexpected(self.name)
        return _Reply(parsed)

    def _query_root(self, creds: GatewayCredentials, fields: dict[str, str]) -> ET.Element:
        text = self._post(creds, QUERY_PATH, fields)
        root = xml_root(text.strip().encode(), self.name)
        error = root.findtext("error_response")
        if error is not None:
            raise _query_failure(error.strip())
        return root

    def _query(self, creds: GatewayCredentials, fields: dict[str, str]) -> list[_Transaction]:
        return [_transaction(el) for el in self._query_root(creds, fields).iter("transaction")]

    def _transaction(self, creds: GatewayCredentials, reference: str) -> _Transaction:
        for txn in self._query(creds, {"transaction_id": reference}):
            if txn.transaction_id == reference:
                return txn
        raise GatewayError(f"NMI has no transaction {reference}", gateway=self.name)

    def _vault_record(
        self, creds: GatewayCredentials, vault_id: str, method_type: MethodType
    ) -> _VaultRecord:
        root = self._query_root(
            creds, {"report_type": "customer_vault", "customer_vault_id": vault_id}
        )
        for customer in root.iter("customer"):
            if (customer.findtext("customer_vault_id") or customer.get("id")) == vault_id:
                return _vault_details(customer, method_type)
        return _VaultRecord()


# --- mapping ------------------------------------------------------------------------------


def _hide_sent_secrets(text: str, body: dict[str, str]) -> str:
    """Blank the request's secret and token wherever NMI's answer echoes them."""
    return hide_values(text, (body.get(key) for key in _SENSITIVE_FIELDS))


def _charge_status(method_type: MethodType, capture: bool) -> GatewayStatus:
    if method_type is MethodType.BANK_ACCOUNT:
        return GatewayStatus.SUBMITTED
    return GatewayStatus.CAPTURED if capture else GatewayStatus.AUTHORIZED


def _is_duplicate(reply: _Reply) -> bool:
    return reply.response == "3" and "duplicate transaction" in reply.text.lower()


def _is_credentials_problem(text: str) -> bool:
    lowered = text.lower()
    return any(
        marker in lowered
        for marker in (
            "authentication failed",
            "invalid security key",
            "invalid username",
            "must use sandbox",
            "security key is not",
        )
    )


def _is_method_problem(text: str) -> bool:
    lowered = text.lower()
    if "token" in lowered or "customer vault" in lowered or "vault id" in lowered:
        return any(
            marker in lowered
            for marker in ("invalid", "not found", "does not exist", "expired", "used", "unknown")
        )
    return False


def _error(
    cls: type[GatewayError],
    detail: str,
    message: str,
    request_id: str = "",
    decline: str | None = None,
) -> GatewayError:
    return cls(
        detail,
        gateway=NmiGateway.name,
        decline_code=decline,
        gateway_message=redact(message),
        gateway_request_id=request_id or None,
    )


def _failure(reply: _Reply) -> GatewayError:
    """The payhub failure for a declined (2) or erroring (3) ``transact.php`` answer."""
    code, text, ref = reply.code, reply.text, reply.transaction_id
    if reply.response == "2":
        reason = decline_code(code)
        detail = f"NMI declined the payment ({reason}, response code {code or 'none'})"
        return _error(Declined, detail, text, ref, reason)
    if _is_credentials_problem(text):
        detail = f"NMI rejected the merchant's security key; {_CREDENTIALS_REJECTED}"
        return _error(GatewayCredentialsRejected, detail, text, ref)
    if _is_method_problem(text):
        detail = (
            "NMI does not accept this payment method (the token is unknown, expired or already"
            " used, or the vault record is gone); collect the payment method again"
        )
        return _error(PaymentMethodInvalid, detail, text, ref)
    if _is_duplicate(reply):
        detail = (
            "NMI refused the charge as a duplicate of a recent one with the same payment method"
            " and amount"
        )
        return _error(Declined, detail, text, ref, "generic_decline")
    if code in _COMMUNICATION_ERRORS:
        detail = f"NMI could not reach the processor (response code {code}); nothing was charged"
        return _error(GatewayUnavailable, detail, text, ref)
    if code.startswith("4"):
        detail = f"NMI's processor refused the transaction (response code {code})"
        return _error(Declined, detail, text, ref, "processing_error")
    return _error(GatewayError, f"NMI refused the request (response code {code or 'none'})", text)


def _query_failure(text: str) -> GatewayError:
    if _is_credentials_problem(text):
        detail = f"NMI rejected the merchant's security key; {_CREDENTIALS_REJECTED}"
        return _error(GatewayCredentialsRejected, detail, text)
    return _error(GatewayError, "NMI's Query API refused the request", text)


def _money(amount: Decimal, currency: str) -> Money:
    try:
        return Money.of(amount, currency)
    except ValidationError:
        raise GatewayError(
            f"NMI reported an amount payhub cannot represent in {currency}", gateway="nmi"
        ) from None


def _decimal(text: str | None) -> Decimal:
    try:
        value = Decimal((text or "0").strip() or "0")
    except InvalidOperation:
        raise GatewayError("NMI reported an amount that is not a number", gateway="nmi") from None
    if not value.is_finite():
        raise GatewayError("NMI reported an amount that is not a number", gateway="nmi")
    return value


def _transaction(el: ET.Element) -> _Transaction:
    actions = tuple(
        _Action(
            kind=(a.findtext("action_type") or "").strip().lower(),
            amount=abs(_decimal(a.findtext("amount"))),
            success=(a.findtext("success") or "").strip() == "1",
        )
        for a in el.findall("action")
    )
    return _Transaction(
        transaction_id=(el.findtext("transaction_id") or "").strip(),
        transaction_type=(el.findtext("transaction_type") or "").strip().lower(),
        condition=(el.findtext("condition") or "").strip().lower(),
        order_id=(el.findtext("order_id") or "").strip(),
        currency=(el.findtext("currency") or "").strip().upper(),
        actions=actions,
    )


def _last4(masked: str | None) -> str | None:
    tail = (masked or "").strip()[-4:]
    return tail if len(tail) == 4 and tail.isdigit() else None


def _vault_details(customer: ET.Element, method_type: MethodType) -> _VaultRecord:
    """Only what is safe to show: brand, last 4, expiry (NMI masks the numbers itself)."""
    if method_type is MethodType.BANK_ACCOUNT:
        return _VaultRecord(last4=_last4(customer.findtext("check_account")))
    masked = (customer.findtext("cc_number") or "").strip()
    kind = (customer.findtext("cc_type") or "").replace(" ", "").lower()
    brand = _BRANDS.get(kind) or _brand_from_number(masked)
    expiry = (customer.findtext("cc_exp") or "").strip()  # MMYY
    month = year = None
    if len(expiry) == 4 and expiry.isdigit() and 1 <= int(expiry[:2]) <= 12:
        month, year = int(expiry[:2]), 2000 + int(expiry[2:])
    return _VaultRecord(brand=brand, last4=_last4(masked), exp_month=month, exp_year=year)


def _brand_from_number(masked: str) -> str | None:
    if masked.startswith("4"):
        return "visa"
    if masked[:1] in ("2", "5"):
        return "mastercard"
    if masked[:2] in ("34", "37"):
        return "amex"
    if masked.startswith("6"):
        return "discover"
    return None
