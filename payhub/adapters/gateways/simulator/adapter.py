"""The built-in simulator gateway: sandbox only, offline, deterministic.

The outcome is decided by the token, so every flow (declines, timeouts, ACH returns)
can be exercised without a network. Tokens come from the simulator's hosted fields
(``/simulator/hosted-fields.js``), which turn the test card and bank numbers below into
tokens in the browser, or can be sent directly:

- ``sim_card_ok``: approved (Visa; hosted fields number 4242 4242 4242 4242)
- ``sim_card_mastercard``: approved (Mastercard; 5555 5555 5555 4444)
- ``sim_card_decline``: declined, ``generic_decline`` (4000 0000 0000 0002)
- ``sim_card_insufficient``: declined, ``insufficient_funds`` (4000 0000 0000 9995)
- ``sim_card_expired``: declined, ``expired_card`` (4000 0000 0000 0069)
- ``sim_card_cvc``: declined, ``incorrect_cvc`` (4000 0000 0000 0127)
- ``sim_card_fraud``: declined, ``fraudulent`` (4100 0000 0000 0019)
- ``sim_card_processing``: declined, ``processing_error`` (4000 0000 0000 0119)
- ``sim_card_timeout``: no answer in time, though the charge went through (4000 0000 0000 3238)
- ``sim_card_unavailable``: gateway unavailable, nothing happened (4000 0000 0000 5126)
- ``sim_bank_ok``: ACH debit submitted (routing 110000000, account 000123456789)
- ``sim_bank_returned``: submitted; a status call later reports it returned, R01
  (routing 110000000, account 000111111116)

A token may carry a ``_suffix`` (``sim_card_ok_8f3a``), as hosted-fields tokens do.
Any other token is ``PaymentMethodInvalid``. Credentials: any non-blank ``apiSecret``;
the additional field ``latencyMs`` adds that much latency to every call.
References are derived from the idempotency key, so a retried call returns the same
reference. The timeout token loses the first answer per idempotency key (remembered in
this process); a retry under the same key then succeeds with the original reference.
"""

from __future__ import annotations

import hashlib
import threading
import time

import attrs

from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayResult,
    GatewayStatus,
    GatewayTimeout,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)


@attrs.frozen
class _Behaviour:
    method_type: MethodType
    decline: str | None = None
    brand: str | None = None
    last4: str | None = None
    timeout: bool = False
    unavailable: bool = False
    returned: bool = False


BEHAVIOURS: dict[str, _Behaviour] = {
    "sim_card_ok": _Behaviour(MethodType.CARD, brand="visa", last4="4242"),
    "sim_card_mastercard": _Behaviour(MethodType.CARD, brand="mastercard", last4="4444"),
    "sim_card_decline": _Behaviour(MethodType.CARD, "generic_decline", "visa", "0002"),
    "sim_card_insufficient": _Behaviour(MethodType.CARD, "insufficient_funds", "visa", "9995"),
    "sim_card_expired": _Behaviour(MethodType.CARD, "expired_card", "visa", "0069"),
    "sim_card_cvc": _Behaviour(MethodType.CARD, "incorrect_cvc", "visa", "0127"),
    "sim_card_fraud": _Behaviour(MethodType.CARD, "fraudulent", "visa", "0019"),
    "sim_card_processing": _Behaviour(MethodType.CARD, "processing_error", "visa", "0119"),
    "sim_card_timeout": _Behaviour(MethodType.CARD, brand="visa", last4="3238", timeout=True),
    "sim_card_unavailable": _Behaviour(
        MethodType.CARD, brand="visa", last4="5126", unavailable=True
    ),
    "sim_bank_ok": _Behaviour(MethodType.BANK_ACCOUNT, last4="6789"),
    "sim_bank_returned": _Behaviour(MethodType.BANK_ACCOUNT, last4="1116", returned=True),
}
_MESSAGES = {
    "generic_decline": "Your card was declined.",
    "insufficient_funds": "Your card has insufficient funds.",
    "expired_card": "Your card has expired.",
    "incorrect_cvc": "Your card's security code is incorrect.",
    "fraudulent": "Your card was declined.",
    "processing_error": "An error occurred while processing your card. Try again.",
}


def behaviour_of(token: str) -> _Behaviour | None:
    """The test behaviour a token (or a saved-method reference built from one) stands for."""
    for name in sorted(BEHAVIOURS, key=len, reverse=True):
        if token == name or token.startswith(name + "_") or token.startswith("simpm_" + name):
            return BEHAVIOURS[name]
    return None


def _ref(prefix: str, key: str) -> str:
    return f"{prefix}_{hashlib.sha256(key.encode()).hexdigest()[:24]}"


class SimulatorGateway:
    name = "simulator"

    def __init__(self, default_latency_ms: int = 0) -> None:
        self._default_latency_ms = default_latency_ms
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def _first_sight(self, key: str) -> bool:
        """The timeout token loses only the first answer for a key, like a real network blip:
        the charge went through, and a retry under the same key gets the original result."""
        with self._lock:
            first = key not in self._seen
            self._seen.add(key)
            return first

    def _wait(self, creds: GatewayCredentials) -> None:
        given = str(creds.fields.get("latencyMs", self._default_latency_ms)).strip()
        latency = int(given) if given.isdigit() else 0
        if latency > 0:
            time.sleep(latency / 1000)

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        self._wait(creds)
        source = request.source
        token = source.token or source.saved_method_ref or ""
        found = behaviour_of(token)
        if found is None or found.method_type is not source.method_type:
            raise PaymentMethodInvalid(
                "the simulator does not know this payment method token; use a documented"
                " test token",
                gateway=self.name,
            )
        if found.unavailable:
            raise GatewayUnavailable("the simulator is unavailable (test token)", gateway=self.name)
        if found.timeout and self._first_sight(request.idempotency_key):
            raise GatewayTimeout(
                "the simulator did not answer in time (test token); the charge went through",
                gateway=self.name,
            )
        if found.decline:
            raise Declined(
                f"the card was declined ({found.decline})",
                gateway=self.name,
                decline_code=found.decline,
                gateway_message=_MESSAGES[found.decline],
            )
        reference = _ref("simtxr" if found.returned else "simtx", request.idempotency_key)
        if source.method_type is MethodType.BANK_ACCOUNT:
            status = GatewayStatus.SUBMITTED
        else:
            status = GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED
        return GatewayResult(
            reference,
            status,
            request.amount,
            support={"simulator": "ok"},
            brand=found.brand,
            last4=found.last4,
        )

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        self._wait(creds)
        return GatewayResult(reference, GatewayStatus.CAPTURED, amount)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        self._wait(creds)
        return GatewayResult(_ref("simre", idempotency_key), GatewayStatus.REFUNDED, amount)

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        self._wait(creds)
        return GatewayResult(reference, GatewayStatus.VOIDED, Money.zero("USD"))

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """The simulator keeps no ledger: it reports a charge as captured (payhub's ledger
        knows more), and a returned ACH debit (``simtxr_`` references) as returned."""
        self._wait(creds)
        if reference.startswith("simtxr_"):
            return GatewayResult(
                reference,
                GatewayStatus.SUBMITTED,
                Money.zero("USD"),
                decline_code="ach_returned",
                message="R01: insufficient funds",
            )
        return GatewayResult(reference, GatewayStatus.CAPTURED, Money.zero("USD"))

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        self._wait(creds)
        found = behaviour_of(request.token)
        if found is None or found.method_type is not request.method_type:
            raise PaymentMethodInvalid(
                "the simulator does not know this payment method token", gateway=self.name
            )
        name = next(k for k, v in BEHAVIOURS.items() if v is found)
        suffix = hashlib.sha256(f"{request.customer_id}:{request.token}".encode()).hexdigest()[:12]
        bank = found.method_type is MethodType.BANK_ACCOUNT
        return SavedMethod(
            gateway_customer_ref=request.gateway_customer_ref or f"simcus_{request.customer_id}",
            method_ref=f"simpm_{name}_{suffix}",
            method_type=found.method_type,
            brand=found.brand,
            last4=found.last4,
            exp_month=None if bank else 12,
            exp_year=None if bank else 2034,
            bank_name="Simulator Bank" if bank else None,
            # The simulator's vault verifies like a real one: a card that would be declined
            # (or whose issuer cannot be reached) is saved but not verified.
            verified=found.decline is None and not found.unavailable and not found.timeout,
        )
