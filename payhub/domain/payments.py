"""Payments: the gateway-neutral vocabulary, the failure tree and the transaction state machine.

A transaction is one charge and everything that happens to it afterwards::

    Authorized --capture--> Captured --refund--> PartiallyRefunded --refund--> Refunded
        |                      (partial capture where the gateway allows; refunds never
        +--void--> Voided       exceed what was captured)
    Submitted (ACH debit sent, not settled) --refund--> …   Failed (declined or errored)
    Unknown (the gateway timed out) --status--> whatever the gateway says
    CapturePending / RefundPending / VoidPending: the gateway *accepted* the move and finishes
        it later (Checkout.com's 202s, Square's PENDING refunds, a sale answered Authorized);
        the amounts stay reserved and a status read settles it (``settle_pending``), or the
        gateway's own notification of the outcome (Adyen's webhooks: ``notified_result``)

Every move is checked here before a gateway is called: an illegal one is a ``Conflict``
and the gateway never hears of it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import attrs

from payhub.domain.debit_authorizations import DebitAuthorization
from payhub.domain.errors import Conflict, PayHubError, ValidationError
from payhub.domain.gateways import GatewayInfo
from payhub.domain.money import Money


class MethodType(StrEnum):
    CARD = "Card"
    BANK_ACCOUNT = "BankAccount"


class TxStatus(StrEnum):
    PENDING = "Pending"  # recorded, being sent to the gateway
    AUTHORIZED = "Authorized"
    CAPTURED = "Captured"
    SUBMITTED = "Submitted"  # ACH: the debit was sent; settlement takes days
    PARTIALLY_REFUNDED = "PartiallyRefunded"
    REFUNDED = "Refunded"
    VOIDED = "Voided"
    FAILED = "Failed"
    UNKNOWN = "Unknown"  # the gateway did not answer in time; a status call settles it
    # The gateway accepted a move and finishes it later; the amount stays reserved, nothing
    # else may happen to the transaction until a status read settles it.
    CAPTURE_PENDING = "CapturePending"
    REFUND_PENDING = "RefundPending"
    VOID_PENDING = "VoidPending"


class GatewayStatus(StrEnum):
    """What a gateway said about one operation, normalised."""

    AUTHORIZED = "authorized"
    CAPTURED = "captured"
    SUBMITTED = "submitted"
    REFUNDED = "refunded"
    VOIDED = "voided"
    DECLINED = "declined"
    PENDING = "pending"


# --- failures ------------------------------------------------------------------------------


class GatewayError(PayHubError):
    """The gateway refused or failed. Carries what a caller can act on, never raw payloads."""

    status = 502
    code = "gateway-error"
    title = "The payment gateway failed"
    retry_safe = False

    def __init__(
        self,
        detail: str,
        *,
        gateway: str = "",
        decline_code: str | None = None,
        gateway_message: str | None = None,
        gateway_request_id: str | None = None,
    ) -> None:
        super().__init__(detail)
        self.gateway = gateway
        self.decline_code = decline_code
        self.gateway_message = gateway_message
        self.gateway_request_id = gateway_request_id
        self.transaction_id: str | None = None  # set once the attempt is in the ledger


class Declined(GatewayError):
    status = 402
    code = "payment-declined"
    title = "The payment was declined"


class PaymentMethodInvalid(GatewayError):
    """The token is unknown, used up or expired: collect the payment method again."""

    status = 402
    code = "payment-method-invalid"
    title = "The payment method cannot be used"


class GatewayCredentialsRejected(GatewayError):
    status = 502
    code = "gateway-credentials-rejected"
    title = "The gateway rejected the merchant's credentials"


class GatewayUnavailable(GatewayError):
    status = 502
    code = "gateway-unavailable"
    title = "The payment gateway is unavailable"
    retry_safe = True


class GatewayTimeout(GatewayError):
    status = 504
    code = "gateway-timeout"
    title = "The payment gateway did not answer in time"


DECLINE_CODES = (
    "generic_decline",
    "insufficient_funds",
    "expired_card",
    "incorrect_cvc",
    "fraudulent",
    "processing_error",
)


# --- the transaction -----------------------------------------------------------------------


@attrs.define
class Transaction:
    id: str
    merchant_id: str
    gateway: str
    method_type: MethodType
    amount: Money
    status: TxStatus
    captured: Money
    refunded: Money
    created_at: datetime
    updated_at: datetime
    gateway_key: str = ""  # the idempotency key the gateway saw for the charge
    gateway_reference: str | None = None
    location_id: str | None = None
    customer_id: str | None = None
    payment_method_id: str | None = None
    decline_code: str | None = None
    failure_message: str | None = None
    method_brand: str | None = None  # what the gateway says was charged: "visa", for receipts
    method_last4: str | None = None

    @property
    def capturable(self) -> Money:
        return (
            self.amount - self.captured
            if self.status is TxStatus.AUTHORIZED
            else Money.zero(self.amount.currency)
        )

    @property
    def refundable(self) -> Money:
        return self.captured - self.refunded


class EventKind(StrEnum):
    CHARGE = "charge"
    AUTHORIZE = "authorize"
    CAPTURE = "capture"
    REFUND = "refund"
    VOID = "void"
    STATUS = "status"


class Outcome(StrEnum):
    SUCCEEDED = "succeeded"
    DECLINED = "declined"
    FAILED = "failed"
    UNKNOWN = "unknown"
    RETURNED = "returned"  # an ACH debit came back after submission; recorded, not acted on
    PENDING = "pending"  # the gateway accepted the move and finishes it later


@attrs.frozen
class TransactionEvent:
    """One attempt against the gateway: the ledger line. Never updated, never deleted."""

    id: str
    transaction_id: str
    kind: EventKind
    outcome: Outcome
    created_at: datetime
    amount: Money | None = None
    gateway_reference: str | None = None
    decline_code: str | None = None
    message: str | None = None
    support: dict[str, str] = attrs.field(factory=dict)


_REFUNDABLE = {TxStatus.CAPTURED, TxStatus.SUBMITTED, TxStatus.PARTIALLY_REFUNDED}
PENDING_MOVES = {TxStatus.CAPTURE_PENDING, TxStatus.REFUND_PENDING, TxStatus.VOID_PENDING}


def _not_while_pending(tx: Transaction) -> None:
    if tx.status in PENDING_MOVES:
        raise Conflict(
            f"the gateway has not finished the last move (this transaction is {tx.status});"
            " read it with ?refresh=true to settle it first"
        )


def check_capture(tx: Transaction, amount: Money | None, gateway: GatewayInfo) -> Money:
    """The amount to capture (all of it when ``None``), or why not."""
    _not_while_pending(tx)
    if tx.status is not TxStatus.AUTHORIZED:
        raise Conflict(f"only an Authorized transaction can be captured; this one is {tx.status}")
    wanted = tx.amount if amount is None else amount
    _same_currency(tx, wanted)
    wanted.require_positive()
    if wanted > tx.amount:
        raise Conflict(f"cannot capture {wanted}: only {tx.amount} was authorized")
    if wanted < tx.amount and not gateway.partial_capture:
        raise Conflict(f"{gateway.display_name} does not allow capturing part of an authorization")
    return wanted


def check_refund(tx: Transaction, amount: Money | None) -> Money:
    _not_while_pending(tx)
    if tx.status not in _REFUNDABLE:
        raise Conflict(f"only a captured transaction can be refunded; this one is {tx.status}")
    wanted = tx.refundable if amount is None else amount
    _same_currency(tx, wanted)
    wanted.require_positive()
    if wanted > tx.refundable:
        raise Conflict(
            f"cannot refund {wanted}: {tx.refundable} of the {tx.captured} captured is left"
        )
    return wanted


def check_void(tx: Transaction) -> None:
    _not_while_pending(tx)
    if tx.status is not TxStatus.AUTHORIZED:
        raise Conflict(
            f"only an Authorized transaction can be voided; this one is {tx.status}"
            + ("; refund it instead" if tx.status in _REFUNDABLE else "")
        )


def after_capture(tx: Transaction, amount: Money, at: datetime) -> None:
    tx.captured = amount
    tx.status = TxStatus.CAPTURED
    tx.updated_at = at


def after_refund(tx: Transaction, amount: Money, at: datetime) -> None:
    tx.refunded = tx.refunded + amount
    tx.status = TxStatus.REFUNDED if tx.refunded == tx.captured else TxStatus.PARTIALLY_REFUNDED
    tx.updated_at = at


def after_void(tx: Transaction, at: datetime) -> None:
    tx.status = TxStatus.VOIDED
    tx.updated_at = at


_PENDING_OF = {
    "capture": TxStatus.CAPTURE_PENDING,
    "refund": TxStatus.REFUND_PENDING,
    "void": TxStatus.VOID_PENDING,
}


def mark_pending(tx: Transaction, move: str, at: datetime) -> None:
    """The gateway accepted ``move`` (capture, refund, void) but has not finished it: the
    reservation already made stays (so nothing can be captured or refunded twice) and the
    transaction waits for a status read."""
    tx.status = _PENDING_OF[move]
    tx.updated_at = at


def settle_pending(tx: Transaction, result: GatewayResult, at: datetime) -> bool:
    """Apply a status read to a transaction with a pending move; true when it changed.

    The gateway's word decides: the move finished (status moves on, the reservation stands),
    is still under way (nothing changes), or failed (the reservation is released). Refunds are
    judged by ``result.refunded`` where the adapter reports it, since a payment that is still
    ``captured`` may have one refund done and another pending.
    """
    settle = {
        TxStatus.CAPTURE_PENDING: _settle_capture,
        TxStatus.VOID_PENDING: _settle_void,
        TxStatus.REFUND_PENDING: _settle_refund,
    }.get(tx.status)
    if settle is None or not settle(tx, result):
        return False
    tx.updated_at = at
    return True


def _settle_capture(tx: Transaction, result: GatewayResult) -> bool:
    if result.status in (GatewayStatus.CAPTURED, GatewayStatus.REFUNDED):
        if result.captured is not None and result.captured.amount > 0:
            tx.captured = min(result.captured, tx.amount)
        tx.status = TxStatus.CAPTURED
    elif result.status in (GatewayStatus.VOIDED, GatewayStatus.DECLINED):
        tx.captured = Money.zero(tx.amount.currency)
        tx.status = TxStatus.VOIDED if result.status is GatewayStatus.VOIDED else TxStatus.FAILED
    else:
        return False  # still authorized or pending: the capture is under way
    return True


def _settle_void(tx: Transaction, result: GatewayResult) -> bool:
    if result.status is GatewayStatus.VOIDED:
        tx.status = TxStatus.VOIDED
    elif result.status in (GatewayStatus.CAPTURED, GatewayStatus.REFUNDED):
        tx.captured = result.captured or tx.amount
        tx.status = TxStatus.CAPTURED
    elif result.status is GatewayStatus.DECLINED:
        tx.status = TxStatus.AUTHORIZED  # the gateway refused the void: the authorization stands
    else:
        return False
    return True


def _settle_refund(tx: Transaction, result: GatewayResult) -> bool:
    done = result.refunded
    if done is None:
        if result.status is not GatewayStatus.REFUNDED:
            return False  # no amount reported: only "refunded" in full says it is done
        done = tx.refunded
    in_flight = result.refunding or Money.zero(tx.amount.currency)
    if done >= tx.refunded:
        tx.refunded = min(done, tx.captured)
    elif result.status is GatewayStatus.PENDING or (
        in_flight.amount > 0 and done + in_flight >= tx.refunded
    ):
        return False  # still under way
    elif in_flight.amount > 0:
        # One refund failed while another is still under way: release the failed one only.
        tx.refunded = done + in_flight
        return True
    else:
        tx.refunded = done  # the gateway refused it: release what was reserved
    if tx.refunded.amount == 0:
        tx.status = TxStatus.CAPTURED
    else:
        tx.status = TxStatus.REFUNDED if tx.refunded == tx.captured else TxStatus.PARTIALLY_REFUNDED
    return True


@attrs.frozen
class GatewayNotification:
    """One outcome a gateway posted to payhub (Adyen's webhooks), read and checked by its
    adapter. ``problem`` says why it must be ignored (a bad signature, another merchant
    account, an event payhub does not act on); such a notification changes nothing.

    ``payment_reference`` is the payment's gateway reference (the transaction's); ``reference``
    is the notified operation's own (the charge's for a charge, else the capture's, refund's or
    cancel's, as the adapter reported it when the move was accepted). ``moves`` are the ledger
    kinds it can settle (a cancel-or-refund settles whichever of the two is pending)."""

    payment_reference: str
    reference: str
    moves: frozenset[EventKind]
    success: bool
    amount: Money | None = None
    message: str | None = None
    problem: str | None = None
    support: dict[str, str] = attrs.field(factory=dict)


def notified_result(
    tx: Transaction, ledger: list[TransactionEvent], note: GatewayNotification
) -> GatewayResult | None:
    """The notification as the status read the refresh path applies (``settle_pending``, or an
    ``Unknown`` charge taking the gateway's word); ``None`` when it answers no open question of
    the transaction: a duplicate or retried delivery (already settled), a move other than the
    pending one, an outcome that came after the move was settled."""
    zero = Money.zero(tx.amount.currency)

    def result(status: GatewayStatus, refunded: Money | None = None) -> GatewayResult:
        return GatewayResult(
            reference=note.reference,
            status=status,
            amount=note.amount or tx.amount,
            message=note.message,
            support=dict(note.support),
            refunded=refunded,
        )

    if tx.status is TxStatus.UNKNOWN:
        if EventKind.CHARGE not in note.moves or note.reference != tx.gateway_reference:
            return None
        if not note.success:
            return result(GatewayStatus.DECLINED)
        sale = any(e.kind is EventKind.CHARGE for e in ledger)
        return result(GatewayStatus.CAPTURED if sale else GatewayStatus.AUTHORIZED)
    move = {
        TxStatus.CAPTURE_PENDING: EventKind.CAPTURE,
        TxStatus.REFUND_PENDING: EventKind.REFUND,
        TxStatus.VOID_PENDING: EventKind.VOID,
    }.get(tx.status)
    pending = next(
        (e for e in reversed(ledger) if e.kind is move and e.outcome is Outcome.PENDING), None
    )
    if move is None or move not in note.moves or pending is None:
        return None
    if pending.gateway_reference != note.reference:
        return None  # about another (earlier) move of the same payment
    if move is EventKind.CAPTURE:
        return result(GatewayStatus.CAPTURED if note.success else GatewayStatus.DECLINED)
    if move is EventKind.VOID:
        return result(GatewayStatus.VOIDED if note.success else GatewayStatus.DECLINED)
    if note.success:
        return result(GatewayStatus.REFUNDED, refunded=tx.refunded)
    released = tx.refunded - (pending.amount or zero)
    return result(GatewayStatus.CAPTURED, refunded=max(released, zero))


def status_from_gateway(result: GatewayStatus, method: MethodType) -> TxStatus:
    """The transaction status a fresh charge or authorization lands in."""
    return {
        GatewayStatus.AUTHORIZED: TxStatus.AUTHORIZED,
        GatewayStatus.CAPTURED: TxStatus.SUBMITTED
        if method is MethodType.BANK_ACCOUNT
        else TxStatus.CAPTURED,
        GatewayStatus.SUBMITTED: TxStatus.SUBMITTED,
        GatewayStatus.PENDING: TxStatus.SUBMITTED
        if method is MethodType.BANK_ACCOUNT
        else TxStatus.UNKNOWN,
        GatewayStatus.REFUNDED: TxStatus.REFUNDED,
        GatewayStatus.VOIDED: TxStatus.VOIDED,
        GatewayStatus.DECLINED: TxStatus.FAILED,
    }[result]


def _same_currency(tx: Transaction, amount: Money) -> None:
    if amount.currency != tx.amount.currency:
        raise ValidationError.for_field(
            "amount.currency", f"must be {tx.amount.currency}, the currency of the charge"
        )


def parse_amount(value: Decimal, currency: str) -> Money:
    """A caller's amount: a positive number at the currency's precision."""
    return Money.of(value, currency, field="amount.value").require_positive("amount.value")


# --- what crosses the gateway port -------------------------------------------------------------


@attrs.frozen
class GatewayCredentials:
    """A merchant's opened credentials for one gateway; lives only for the call."""

    api_secret: str = attrs.field(repr=False)
    sandbox: bool
    fields: dict[str, str] = attrs.field(factory=dict, repr=False)


@attrs.frozen
class PaymentSource:
    """What to charge: a fresh client-side token, or a method saved in the gateway's vault."""

    method_type: MethodType
    token: str | None = attrs.field(default=None, repr=False)
    saved_method_ref: str | None = None
    gateway_customer_ref: str | None = None
    # A bank debit the payer authorized on payhub's pay page (gateways that take the
    # acceptance, Stripe's mandate_data, send it); None: authorized elsewhere (the API caller).
    authorization: DebitAuthorization | None = attrs.field(default=None, repr=False)

    def __attrs_post_init__(self) -> None:
        if (self.token is None) == (self.saved_method_ref is None):
            raise ValueError("a payment source is either a token or a saved method")


@attrs.frozen
class ChargeRequest:
    amount: Money
    source: PaymentSource
    capture: bool  # False: authorize only
    idempotency_key: str  # payhub's key for this attempt; sent to gateways that honour one
    description: str | None = None


@attrs.frozen
class GatewayResult:
    """A gateway's answer, normalised. ``support`` is a short redacted note for support staff."""

    reference: str
    status: GatewayStatus
    amount: Money
    decline_code: str | None = None
    message: str | None = None
    support: dict[str, str] = attrs.field(factory=dict)
    # What a status read says is done, where the gateway reports it: lets a pending capture or
    # refund be settled exactly (``settle_pending``). ``None``: not reported.
    captured: Money | None = None
    refunded: Money | None = None
    refunding: Money | None = None  # refunds the gateway accepted and has not finished
    brand: str | None = None  # the card charged ("visa"), when the gateway says
    last4: str | None = None  # its last four digits, or the bank account's


@attrs.frozen
class SaveMethodRequest:
    method_type: MethodType
    token: str = attrs.field(repr=False)
    customer_id: str  # payhub's customer id, used as the gateway customer's reference
    gateway_customer_ref: str | None  # the gateway's customer, when one exists already
    email: str | None = None
    name: str | None = None
    idempotency_key: str = ""


@attrs.frozen
class SavedMethod:
    """A vaulted payment method: references plus what is safe to show."""

    gateway_customer_ref: str
    method_ref: str
    method_type: MethodType
    brand: str | None = None
    last4: str | None = None
    exp_month: int | None = None
    exp_year: int | None = None
    bank_name: str | None = None
    # The gateway checked the method with the card's issuer while vaulting it (a zero-amount
    # or small authorization, or the vault's own verification). False: saved unchecked.
    verified: bool = False
