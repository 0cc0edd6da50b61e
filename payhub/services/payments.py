"""Charge, capture, refund, void and status through the gateway port, with a ledger.

Each operation is three steps, so that no gateway is called inside a database
transaction and no concurrent request can over-capture or over-refund:

1. a unit of work checks the rules and *reserves* the move on the transaction row
   (locked on PostgreSQL; SQLite has one writer);
2. the gateway is called, with an idempotency key it can recognise on a retry;
3. a unit of work records the outcome in the ledger and confirms or undoes the move.

Events, emitted in step 3's unit of work (or by the status read or gateway notification that
settles a pending move, ``record_gateway_word``):
``payment.succeeded`` / ``payment.failed`` for a charge or authorization (a timeout emits
nothing until its outcome is known), ``payment.captured``, ``payment.refunded`` and
``payment.voided`` once the gateway says the move is done.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from datetime import date
from decimal import Decimal
from typing import Protocol

import attrs

from payhub.domain.errors import NotFound, PayHubError, ValidationError
from payhub.domain.events import (
    DomainEvent,
    EventType,
    PaymentCaptured,
    PaymentFailed,
    PaymentRefunded,
    PaymentSucceeded,
    PaymentVoided,
)
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    EventKind,
    GatewayCredentials,
    GatewayError,
    GatewayResult,
    GatewayStatus,
    GatewayTimeout,
    MethodType,
    Outcome,
    PaymentSource,
    Transaction,
    TransactionEvent,
    TxStatus,
    after_capture,
    after_refund,
    after_void,
    check_capture,
    check_refund,
    check_void,
    mark_pending,
    parse_amount,
    settle_pending,
    status_from_gateway,
)
from payhub.ports import FindsLostCharges, Gateway, StoredResponse, UnitOfWork
from payhub.services import idempotency
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.events import emit
from payhub.services.gateway_access import adapter_for, open_credentials
from payhub.services.idempotency import IdempotentCall
from payhub.services.locations import pick_location
from payhub.services.merchants import day_range, find_merchant

PAGE_MAX = 200
# A charge that moved (or reserved) the money as far as payhub can tell.
SUCCEEDED = frozenset(
    {TxStatus.CAPTURED, TxStatus.SUBMITTED, TxStatus.AUTHORIZED, TxStatus.CAPTURE_PENDING}
)
_MOVED = {
    EventKind.CAPTURE: PaymentCaptured,
    EventKind.REFUND: PaymentRefunded,
    EventKind.VOID: PaymentVoided,
}


def publish_payment(
    uow: UnitOfWork,
    deps: Deps,
    kind: EventType,
    provider_id: str,
    tx: Transaction,
    events: list[TransactionEvent] | None = None,
) -> DomainEvent:
    """Emit a payment event with the transaction (and its ledger) as the API returns it;
    ``events``: the ledger when the caller has just read it."""
    if events is None:
        events = uow.transactions.events(tx.id)
    data = deps.snapshots.payment(tx, events)
    return emit(
        uow,
        deps,
        kind,
        provider_id=provider_id,
        merchant_id=tx.merchant_id,
        object_id=tx.id,
        data=data,
    )


def _charge_event(tx: Transaction) -> EventType | None:
    if tx.status in SUCCEEDED:
        return PaymentSucceeded
    return PaymentFailed if tx.status is TxStatus.FAILED else None


def _settled_event(before: Transaction, after: Transaction) -> EventType | None:
    """The event of a pending move a status read found finished (None: undone or other)."""
    if before.status is TxStatus.CAPTURE_PENDING and after.status is TxStatus.CAPTURED:
        return PaymentCaptured
    if before.status is TxStatus.VOID_PENDING and after.status is TxStatus.VOIDED:
        return PaymentVoided
    if (
        before.status is TxStatus.REFUND_PENDING
        and after.status in (TxStatus.REFUNDED, TxStatus.PARTIALLY_REFUNDED)
        and after.refunded >= before.refunded
    ):
        return PaymentRefunded
    return None


def ledger_event(
    deps: Deps,
    tx: Transaction,
    kind: EventKind,
    outcome: Outcome,
    amount: Money | None,
    result: GatewayResult | None = None,
    error: GatewayError | None = None,
) -> TransactionEvent:
    """The ledger line of one attempt against the gateway, or of what it reported."""
    return TransactionEvent(
        id=deps.new_id("txe"),
        transaction_id=tx.id,
        kind=kind,
        outcome=outcome,
        created_at=deps.clock.now(),
        amount=amount,
        gateway_reference=result.reference if result else None,
        decline_code=(result.decline_code if result else None)
        or (error.decline_code if error else None),
        message=(error.gateway_message or error.detail)
        if error
        else (result.message if result else None),
        support=dict(result.support) if result else {},
    )


def record_gateway_word(
    uow: UnitOfWork, deps: Deps, provider_id: str, tx: Transaction, result: GatewayResult
) -> Transaction:
    """Record what the gateway says about ``tx`` (locked by the caller): by a status read
    (``Payments.refresh``) or by its own notification (``GatewayNotifications``), one path.

    An ``Unknown`` charge takes the gateway's word; a pending capture, refund or void is
    settled by it (``settle_pending``); an ACH debit reported as returned is recorded in the
    ledger but not acted on (spec: ACH). The ledger gets a ``status`` line either way, and the
    payment event of whatever finished is emitted in the same unit of work.
    """
    before = attrs.evolve(tx)
    outcome = Outcome.SUCCEEDED
    happened: EventType | None = None
    if tx.status is TxStatus.UNKNOWN:
        tx.status = status_from_gateway(result.status, tx.method_type)
        if tx.status in (TxStatus.CAPTURED, TxStatus.SUBMITTED):
            tx.captured = tx.amount
        tx.updated_at = deps.clock.now()
        uow.transactions.save(tx)
        happened = _charge_event(tx)
    elif settle_pending(tx, result, deps.clock.now()):
        uow.transactions.save(tx)
        happened = _settled_event(before, tx)
    elif tx.status is TxStatus.SUBMITTED and result.decline_code == "ach_returned":
        outcome = Outcome.RETURNED
    uow.transactions.add_event(ledger_event(deps, tx, EventKind.STATUS, outcome, None, result))
    if happened is not None:
        publish_payment(uow, deps, happened, provider_id, tx)
    return tx


@attrs.frozen
class ChargeInput:
    amount: Decimal
    currency: str
    gateway: str
    token: str | None = attrs.field(default=None, repr=False)
    method_type: MethodType = MethodType.CARD
    location_id: str | None = None
    capture: bool = True
    description: str | None = None


@attrs.frozen
class TransactionView:
    transaction: Transaction
    events: list[TransactionEvent]


def gateway_key(caller: Caller, idempotency_key: str | None, fallback: str, op: str) -> str:
    """The key sent to the gateway: derived from the caller's Idempotency-Key when there is
    one, so a retry after a crash is the same request to the gateway too."""
    if idempotency_key is None:
        return f"{fallback}:{op}"
    digest = hashlib.sha256(f"{caller.provider_id}\n{idempotency_key}\n{op}".encode()).hexdigest()
    return f"phk-{digest[:40]}"


class Responder(Protocol):
    """Turns a charge's outcome into the answer stored under its Idempotency-Key."""

    def success(self, view: TransactionView) -> StoredResponse: ...

    def failure(self, error: PayHubError) -> StoredResponse | None:
        """``None`` releases the key instead (a timeout: a retry must reach the gateway)."""
        ...


@attrs.frozen
class Answer:
    """A charge under an Idempotency-Key: the stored answer, and what happened now
    (``view`` or ``error``), or neither when ``replayed`` from an earlier request."""

    stored: StoredResponse | None
    replayed: bool = False
    view: TransactionView | None = None
    error: PayHubError | None = None


@attrs.frozen
class ChargeStep:
    """A charge reserved (step 1) and not yet recorded: what step 2 sends and step 3 records.
    ``lost``: an earlier attempt's outcome is unknown, so the gateway is asked for it first."""

    tx: Transaction
    kind: EventKind
    request: ChargeRequest
    adapter: Gateway
    creds: GatewayCredentials = attrs.field(repr=False)
    lost: bool = False


class StoredFailure(PayHubError):
    """An in-process replay of a charge that failed the first time."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code


class _InProcess:
    """The answers kept for in-process charges: the transaction id, or the error."""

    def success(self, view: TransactionView) -> StoredResponse:
        return StoredResponse(201, json.dumps({"transactionId": view.transaction.id}).encode())

    def failure(self, error: PayHubError) -> StoredResponse | None:
        if isinstance(error, GatewayTimeout):
            return None
        body = {"code": error.code, "detail": error.detail}
        return StoredResponse(error.status, json.dumps(body).encode())


def _reserved(amount: Money | None) -> Money:
    """Captures and refunds always reserve an amount; a missing one is a bug, not a default."""
    if amount is None:
        raise AssertionError("a capture or refund reached the gateway without an amount")
    return amount


class Payments:
    """Payments of one merchant (named by ``X-Merchant-Reference``)."""

    def __init__(
        self, deps: Deps, caller: Caller, reference: str, gateways: dict[str, Gateway]
    ) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference
        self._gateways = gateways

    # --- helpers ---------------------------------------------------------------------------

    def _info(self, name: str, field: str = "gatewayName") -> GatewayInfo:
        try:
            return self._d.catalog.get(name, self._caller.environment)
        except NotFound:
            raise ValidationError.for_field(
                field, f"'{name}' is not a supported gateway; GET /api/gateways lists them"
            ) from None

    def _adapter(self, info: GatewayInfo) -> Gateway:
        return adapter_for(self._gateways, info)

    def _credentials(
        self, uow: UnitOfWork, merchant_id: str, info: GatewayInfo
    ) -> GatewayCredentials:
        return open_credentials(uow, self._d.secrets, merchant_id, self._reference, info)

    def _view(self, uow: UnitOfWork, tx: Transaction) -> TransactionView:
        return TransactionView(tx, uow.transactions.events(tx.id))

    # --- charge ----------------------------------------------------------------------------

    def charge(self, given: ChargeInput, idempotency_key: str | None = None) -> TransactionView:
        """Charge a token. With ``idempotency_key``, at most once per key, as over HTTP: the
        same call again returns the same transaction (or raises the same failure as a
        ``StoredFailure``), a different call with the key is 422, a concurrent one 409."""
        if idempotency_key is None:
            view = self._charge_now(given, None).view
            assert view is not None
            return view
        fingerprint = hashlib.sha256(
            f"in-process charge\n{self._reference}\n{given!r}\n{given.token}".encode()
        ).hexdigest()
        key = idempotency.check_key(idempotency_key)
        call = IdempotentCall(self._caller.provider_id, key, fingerprint)
        return self._view_of(self.charge_once(given, call, _InProcess()))

    def charge_once(self, given: ChargeInput, call: IdempotentCall, respond: Responder) -> Answer:
        """A charge under an Idempotency-Key in two write transactions: the key is claimed
        together with the pending transaction, and the outcome is recorded together with
        the stored answer. A bad request (400, 404 …) raises and stores nothing: nothing
        was attempted, as nothing was claimed."""
        return self._charge_now(given, (call, respond))

    def _charge_now(
        self, given: ChargeInput, under: tuple[IdempotentCall, Responder] | None
    ) -> Answer:
        info = self._info(given.gateway)
        amount = parse_amount(given.amount, given.currency)
        self.check_method(info, given.method_type, given.capture)
        token = (given.token or "").strip()
        if not token:
            raise ValidationError.for_field(
                "paymentMethodToken",
                "is required: collect the card or bank account with the"
                f" gateway's hosted fields ({info.hosted_fields}) and send the token",
            )
        tx_id = self._d.new_id("txn")
        key = gateway_key(self._caller, under[0].key if under else None, tx_id, "charge")
        return self._charge(
            gateway_name=info.name,
            amount=amount,
            source=PaymentSource(given.method_type, token=token),
            capture=given.capture,
            gateway_key=key,
            transaction_id=tx_id,
            location_id=given.location_id,
            description=given.description,
            under=under,
        )

    def charge_source(
        self,
        *,
        gateway_name: str,
        amount: Money,
        source: PaymentSource,
        capture: bool,
        gateway_key: str,
        transaction_id: str | None = None,
        location_id: str | None = None,
        customer_id: str | None = None,
        payment_method_id: str | None = None,
        description: str | None = None,
    ) -> TransactionView:
        """Charge a token or a saved method; the building block of invoices and schedules.

        ``gateway_key`` makes it idempotent: a second call with the same key returns the
        transaction recorded by the first (or, when that one's outcome is unknown, asks the
        gateway again under the same key), so a retry after a crash never charges twice.
        The caller has checked the method rules (``check_method``) and the amount.
        """
        answer = self._charge(
            gateway_name=gateway_name,
            amount=amount,
            source=source,
            capture=capture,
            gateway_key=gateway_key,
            transaction_id=transaction_id,
            location_id=location_id,
            customer_id=customer_id,
            payment_method_id=payment_method_id,
            description=description,
            under=None,
        )
        assert answer.view is not None
        return answer.view

    def _charge(
        self,
        *,
        gateway_name: str,
        amount: Money,
        source: PaymentSource,
        capture: bool,
        gateway_key: str,
        transaction_id: str | None,
        location_id: str | None,
        description: str | None,
        under: tuple[IdempotentCall, Responder] | None,
        customer_id: str | None = None,
        payment_method_id: str | None = None,
    ) -> Answer:
        """Without ``under`` a failure raises; with it, it is the answer's ``error``."""
        with self._d.store.unit_of_work() as uow:
            if under is not None:
                stored = idempotency.claim(uow, under[0], self._d.clock.now())
                if stored is not None:
                    return Answer(stored, replayed=True)
            step = self.reserve_charge(
                uow,
                gateway_name=gateway_name,
                amount=amount,
                source=source,
                capture=capture,
                gateway_key=gateway_key,
                transaction_id=transaction_id,
                location_id=location_id,
                customer_id=customer_id,
                payment_method_id=payment_method_id,
                description=description,
            )
            if isinstance(step, TransactionView):
                return Answer(self._finish(uow, under, step), view=step)
        with self._holding(under):
            try:
                outcome = self.send_charge(step)
            except BaseException:
                if under is not None:  # a payhub failure (500): nothing stored, retry may run
                    with self._d.store.unit_of_work() as uow:
                        idempotency.release(uow, under[0])
                raise
            with self._d.store.unit_of_work() as uow:
                answer = self._record(uow, step, outcome, under)
        if under is None and answer.error is not None:
            raise answer.error
        return answer

    def reserve_charge(
        self,
        uow: UnitOfWork,
        *,
        gateway_name: str,
        amount: Money,
        source: PaymentSource,
        capture: bool,
        gateway_key: str,
        transaction_id: str | None = None,
        location_id: str | None = None,
        customer_id: str | None = None,
        payment_method_id: str | None = None,
        description: str | None = None,
    ) -> ChargeStep | TransactionView:
        """Step 1 of a charge, in the caller's unit of work: the ``Pending`` transaction
        under ``gateway_key`` (or the one an earlier attempt left), or the view of the
        transaction an earlier attempt already settled. Callers that own the transaction
        (scheduled runs) reserve their own rows in the same unit of work."""
        info = self._info(gateway_name, field="gateway")
        key = gateway_key
        now = self._d.clock.now()
        merchant = find_merchant(uow, self._caller, self._reference)
        creds = self._credentials(uow, merchant.id, info)
        adapter = self._adapter(info)
        earlier = uow.transactions.get_by_gateway_key(merchant.id, key)
        if earlier is not None and earlier.status not in (TxStatus.PENDING, TxStatus.UNKNOWN):
            return self._view(uow, earlier)
        location = pick_location(uow, merchant.id, location_id)
        # A saved method is named on receipts as it was saved (the gateway may not say).
        saved = (
            uow.payment_methods.get(merchant.id, customer_id, payment_method_id)
            if payment_method_id and customer_id
            else None
        )
        # A retry of a charge whose outcome is unknown goes to the gateway again under
        # the same key: the gateway answers with the original charge, not a new one.
        tx = earlier or Transaction(
            id=transaction_id or self._d.new_id("txn"),
            merchant_id=merchant.id,
            gateway=info.name,
            method_type=source.method_type,
            amount=amount,
            status=TxStatus.PENDING,
            captured=Money.zero(amount.currency),
            refunded=Money.zero(amount.currency),
            created_at=now,
            updated_at=now,
            gateway_key=key,
            location_id=location,
            customer_id=customer_id,
            payment_method_id=payment_method_id,
            method_brand=saved.brand if saved else None,
            method_last4=saved.last4 if saved else None,
        )
        if earlier is None:
            uow.transactions.add(tx)
        request = ChargeRequest(
            amount=tx.amount,
            source=source,
            capture=capture,
            idempotency_key=key,
            description=description,
        )
        kind = EventKind.CHARGE if capture else EventKind.AUTHORIZE
        return ChargeStep(tx, kind, request, adapter, creds, lost=earlier is not None)

    @staticmethod
    def send_charge(step: ChargeStep) -> GatewayResult | GatewayError:
        """Step 2, outside any transaction: the gateway's answer, or its refusal."""
        try:
            found = None
            if step.lost and isinstance(step.adapter, FindsLostCharges):
                found = step.adapter.lookup(step.creds, step.request)
            return found or step.adapter.charge(step.creds, step.request)
        except GatewayError as error:
            return error

    def record_charge(
        self, uow: UnitOfWork, step: ChargeStep, outcome: GatewayResult | GatewayError
    ) -> Answer:
        """Step 3, in the caller's unit of work: the outcome in the ledger (the answer's
        ``view``, or its ``error`` when the gateway refused or timed out)."""
        return self._record(uow, step, outcome, None)

    def _record(
        self,
        uow: UnitOfWork,
        step: ChargeStep,
        outcome: GatewayResult | GatewayError,
        under: tuple[IdempotentCall, Responder] | None,
    ) -> Answer:
        if isinstance(outcome, GatewayError):
            return self._record_charge_failure(uow, step.tx, step.kind, outcome, under)
        return self._record_charge(uow, step.tx, step.kind, outcome, under)

    @contextmanager
    def _holding(self, under: tuple[IdempotentCall, Responder] | None) -> Iterator[None]:
        """Keep the claim's lease renewed while the gateway is called."""
        if under is None:
            yield
            return
        with idempotency.lease_keeper(self._d.store, self._d.clock).hold(under[0]):
            yield

    @staticmethod
    def _finish(
        uow: UnitOfWork,
        under: tuple[IdempotentCall, Responder] | None,
        view: TransactionView | None = None,
        error: PayHubError | None = None,
    ) -> StoredResponse | None:
        """Store the answer under the key in ``uow`` (or release the key), if there is one."""
        if under is None:
            return None
        call, respond = under
        stored = respond.success(view) if view is not None else None
        if error is not None:
            stored = respond.failure(error)
        if stored is None:
            idempotency.release(uow, call)
        else:
            idempotency.finish(uow, call, stored)
        return stored

    @staticmethod
    def check_method(info: GatewayInfo, method_type: MethodType, capture: bool) -> None:
        """The gateway's abilities allow this kind of charge (ACH, authorize-only), else 400."""
        if method_type is MethodType.BANK_ACCOUNT:
            if not info.ach:
                raise ValidationError.for_field(
                    "type",
                    f"{info.display_name} does not take bank-account (ACH) payments in payhub",
                )
            if info.bank_account_vaulting is BankAccountVaulting.VAULT_FIRST:
                raise ValidationError.for_field(
                    "paymentMethodToken",
                    f"{info.display_name} charges only saved bank accounts: save it first with"
                    " POST /api/merchant-accounts/{ref}/customers/{customerId}/payment-methods/"
                    f"{info.name}, then charge the saved method",
                )
            if not capture:
                raise ValidationError.for_field(
                    "capture", "a bank-account debit cannot be authorized only"
                )
        if not capture and not info.authorize_only:
            raise ValidationError.for_field(
                "capture", f"{info.display_name} does not support authorize-only payments"
            )

    def _record_charge(
        self,
        uow: UnitOfWork,
        tx: Transaction,
        kind: EventKind,
        result: GatewayResult,
        under: tuple[IdempotentCall, Responder] | None = None,
    ) -> Answer:
        tx.gateway_reference = result.reference
        tx.method_brand = result.brand or tx.method_brand
        tx.method_last4 = result.last4 or tx.method_last4
        tx.status = status_from_gateway(result.status, tx.method_type)
        outcome = Outcome.SUCCEEDED
        if (
            kind is EventKind.CHARGE
            and tx.status is TxStatus.AUTHORIZED
            and tx.method_type is MethodType.CARD
        ):
            # Asked for a sale, the gateway only authorized so far and captures later
            # (Checkout.com): the capture is pending, not a plain authorization.
            tx.status = TxStatus.CAPTURE_PENDING
            outcome = Outcome.PENDING
        if tx.status in (TxStatus.CAPTURED, TxStatus.SUBMITTED, TxStatus.CAPTURE_PENDING):
            tx.captured = tx.amount
        tx.updated_at = self._d.clock.now()
        uow.transactions.save(tx)
        uow.transactions.add_event(ledger_event(self._d, tx, kind, outcome, tx.amount, result))
        view = self._view(uow, tx)  # the ledger, read once for the event and the answer
        happened = _charge_event(tx)
        if happened is not None:
            publish_payment(uow, self._d, happened, self._caller.provider_id, tx, view.events)
        return Answer(self._finish(uow, under, view), view=view)

    def _record_charge_failure(
        self,
        uow: UnitOfWork,
        tx: Transaction,
        kind: EventKind,
        error: GatewayError,
        under: tuple[IdempotentCall, Responder] | None = None,
    ) -> Answer:
        timed_out = isinstance(error, GatewayTimeout)
        error.transaction_id = tx.id
        tx.status = TxStatus.UNKNOWN if timed_out else TxStatus.FAILED
        tx.decline_code = error.decline_code
        tx.failure_message = error.gateway_message or error.detail
        tx.updated_at = self._d.clock.now()
        uow.transactions.save(tx)
        outcome = (
            Outcome.UNKNOWN
            if timed_out
            else Outcome.DECLINED
            if isinstance(error, Declined)
            else Outcome.FAILED
        )
        uow.transactions.add_event(ledger_event(self._d, tx, kind, outcome, tx.amount, error=error))
        if not timed_out:
            publish_payment(uow, self._d, PaymentFailed, self._caller.provider_id, tx)
        return Answer(self._finish(uow, under, error=error), error=error)

    # --- follow-ups ------------------------------------------------------------------------

    def _follow_up(
        self,
        gateway_name: str,
        transaction_id: str,
        kind: EventKind,
        reserve: Callable[[Transaction, GatewayInfo], Money | None],
        call: Callable[[Gateway, GatewayCredentials, str, Money | None, str], GatewayResult],
        key: str | None,
        under: tuple[IdempotentCall, Responder] | None,
    ) -> Answer:
        """Reserve the move under a row lock, call the gateway, then confirm or undo. With
        ``under``, its key is claimed in the reserving unit of work and the answer stored in
        the recording one; a failure is then the answer's ``error`` instead of raised."""
        info = self._info(gateway_name, field="gateway")
        with self._d.store.unit_of_work() as uow:
            if under is not None:
                stored = idempotency.claim(uow, under[0], self._d.clock.now())
                if stored is not None:
                    return Answer(stored, replayed=True)
            merchant = find_merchant(uow, self._caller, self._reference)
            tx = uow.transactions.get(merchant.id, transaction_id, for_update=True)
            if tx is None or tx.gateway != info.name:
                raise NotFound(f"no {info.name} transaction '{transaction_id}' for this merchant")
            creds = self._credentials(uow, merchant.id, info)
            adapter = self._adapter(info)
            before = attrs.evolve(tx)
            amount = reserve(tx, info)
            uow.transactions.save(tx)
            event_id = self._d.new_id("txe")
        assert tx.gateway_reference is not None
        key = gateway_key(self._caller, key, event_id, kind.value)
        with self._holding(under):
            try:
                result = call(adapter, creds, tx.gateway_reference, amount, key)
            except GatewayError as error:
                with self._d.store.unit_of_work() as uow:
                    timed_out = isinstance(error, GatewayTimeout)
                    if not timed_out:  # the move did not happen: undo the reservation
                        uow.transactions.save(attrs.evolve(before, updated_at=self._d.clock.now()))
                    outcome = Outcome.UNKNOWN if timed_out else Outcome.FAILED
                    if isinstance(error, Declined):
                        outcome = Outcome.DECLINED
                    uow.transactions.add_event(
                        ledger_event(self._d, tx, kind, outcome, amount, error=error)
                    )
                    answer = Answer(self._finish(uow, under, error=error), error=error)
                if under is None:
                    raise
                return answer
            except BaseException:
                if under is not None:  # a payhub failure (500): nothing stored, retry may run
                    with self._d.store.unit_of_work() as uow:
                        idempotency.release(uow, under[0])
                raise
            with self._d.store.unit_of_work() as uow:
                outcome = Outcome.SUCCEEDED
                if result.status is GatewayStatus.PENDING:
                    # Accepted, not finished: the reservation stands and a status read settles it.
                    outcome = Outcome.PENDING
                    tx = uow.transactions.get(tx.merchant_id, tx.id, for_update=True) or tx
                    mark_pending(tx, kind.value, self._d.clock.now())
                    uow.transactions.save(tx)
                uow.transactions.add_event(ledger_event(self._d, tx, kind, outcome, amount, result))
                if outcome is Outcome.SUCCEEDED:
                    publish_payment(uow, self._d, _MOVED[kind], self._caller.provider_id, tx)
                view = self._view(uow, tx)
                return Answer(self._finish(uow, under, view), view=view)

    def _in_process(
        self, op: str, key: str | None, what: str
    ) -> tuple[str | None, tuple[IdempotentCall, Responder] | None]:
        """An in-process caller's ``idempotency_key`` for ``op`` on ``what``: the claim it
        makes (as over HTTP: same call again replays, another call with the key is 422)."""
        if key is None:
            return None, None
        key = idempotency.check_key(key)
        fingerprint = hashlib.sha256(
            f"in-process {op}\n{self._reference}\n{what}".encode()
        ).hexdigest()
        return key, (IdempotentCall(self._caller.provider_id, key, fingerprint), _InProcess())

    def _view_of(self, answer: Answer) -> TransactionView:
        """What an in-process caller gets: the view, the error raised, or a replay's view."""
        if answer.error is not None:
            raise answer.error
        if answer.view is not None:
            return answer.view
        assert answer.stored is not None
        body = json.loads(answer.stored.body)
        if answer.stored.status >= 400:
            raise StoredFailure(answer.stored.status, body["code"], body["detail"])
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            tx = uow.transactions.get(merchant.id, body["transactionId"])
            if tx is None:
                raise NotFound(f"no transaction '{body['transactionId']}' for this merchant")
            return self._view(uow, tx)

    def _capture(
        self,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        key: str | None,
        under: tuple[IdempotentCall, Responder] | None,
    ) -> Answer:
        def reserve(tx: Transaction, info: GatewayInfo) -> Money:
            wanted = check_capture(tx, amount, info)
            after_capture(tx, wanted, self._d.clock.now())
            return wanted

        return self._follow_up(
            gateway_name,
            transaction_id,
            EventKind.CAPTURE,
            reserve,
            lambda g, c, ref, amt, key: g.capture(c, ref, _reserved(amt), key),
            key,
            under,
        )

    def _refund(
        self,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        key: str | None,
        under: tuple[IdempotentCall, Responder] | None,
    ) -> Answer:
        def reserve(tx: Transaction, info: GatewayInfo) -> Money:
            wanted = check_refund(tx, amount)
            after_refund(tx, wanted, self._d.clock.now())
            return wanted

        return self._follow_up(
            gateway_name,
            transaction_id,
            EventKind.REFUND,
            reserve,
            lambda g, c, ref, amt, key: g.refund(c, ref, _reserved(amt), key),
            key,
            under,
        )

    def _void(
        self,
        gateway_name: str,
        transaction_id: str,
        key: str | None,
        under: tuple[IdempotentCall, Responder] | None,
    ) -> Answer:
        def reserve(tx: Transaction, info: GatewayInfo) -> None:
            check_void(tx)
            after_void(tx, self._d.clock.now())

        return self._follow_up(
            gateway_name,
            transaction_id,
            EventKind.VOID,
            reserve,
            lambda g, c, ref, amt, key: g.void(c, ref, key),
            key,
            under,
        )

    def capture(
        self,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        idempotency_key: str | None = None,
    ) -> TransactionView:
        """Capture all of an authorization or ``amount`` of it. With ``idempotency_key``, at
        most once per key, as ``charge``."""
        what = f"{gateway_name}\n{transaction_id}\n{amount!r}"
        key, under = self._in_process("capture", idempotency_key, what)
        return self._view_of(self._capture(gateway_name, transaction_id, amount, key, under))

    def capture_once(
        self,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        call: IdempotentCall,
        respond: Responder,
    ) -> Answer:
        """``capture`` under an Idempotency-Key claimed and answered in its own two write
        transactions (as ``charge_once``)."""
        return self._capture(gateway_name, transaction_id, amount, call.key, (call, respond))

    def refund(
        self,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        idempotency_key: str | None = None,
    ) -> TransactionView:
        """Refund what is left or ``amount``. With ``idempotency_key``, at most once per key."""
        what = f"{gateway_name}\n{transaction_id}\n{amount!r}"
        key, under = self._in_process("refund", idempotency_key, what)
        return self._view_of(self._refund(gateway_name, transaction_id, amount, key, under))

    def refund_once(
        self,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        call: IdempotentCall,
        respond: Responder,
    ) -> Answer:
        return self._refund(gateway_name, transaction_id, amount, call.key, (call, respond))

    def void(
        self, gateway_name: str, transaction_id: str, idempotency_key: str | None = None
    ) -> TransactionView:
        """Void an authorization. With ``idempotency_key``, at most once per key."""
        key, under = self._in_process("void", idempotency_key, f"{gateway_name}\n{transaction_id}")
        return self._view_of(self._void(gateway_name, transaction_id, key, under))

    def void_once(
        self, gateway_name: str, transaction_id: str, call: IdempotentCall, respond: Responder
    ) -> Answer:
        return self._void(gateway_name, transaction_id, call.key, (call, respond))

    # --- reading ---------------------------------------------------------------------------

    def get(self, gateway_name: str, transaction_id: str) -> TransactionView:
        info = self._info(gateway_name, field="gateway")
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            tx = uow.transactions.get(merchant.id, transaction_id)
            if tx is None or tx.gateway != info.name:
                raise NotFound(f"no {info.name} transaction '{transaction_id}' for this merchant")
            return self._view(uow, tx)

    def find(self, transaction_id: str) -> TransactionView:
        """One transaction of the merchant by its id alone (the portal's page)."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            tx = uow.transactions.get(merchant.id, transaction_id)
            if tx is None:
                raise NotFound(f"no transaction '{transaction_id}' for this merchant")
            return self._view(uow, tx)

    def refresh(self, gateway_name: str, transaction_id: str) -> TransactionView:
        """Ask the gateway for the transaction's state and record what it says
        (``record_gateway_word``)."""
        info = self._info(gateway_name, field="gateway")
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            tx = uow.transactions.get(merchant.id, transaction_id)
            if tx is None or tx.gateway != info.name:
                raise NotFound(f"no {info.name} transaction '{transaction_id}' for this merchant")
            if tx.gateway_reference is None:
                # Never acknowledged by the gateway: only a retry under the same key settles it.
                return self._view(uow, tx)
            creds = self._credentials(uow, merchant.id, info)
            adapter = self._adapter(info)
        try:
            result = adapter.status(creds, tx.gateway_reference)
        except GatewayError as error:
            with self._d.store.unit_of_work() as uow:
                uow.transactions.add_event(
                    ledger_event(self._d, tx, EventKind.STATUS, Outcome.FAILED, None, error=error)
                )
            raise
        with self._d.store.unit_of_work() as uow:
            tx = uow.transactions.get(merchant.id, transaction_id, for_update=True) or tx
            tx = record_gateway_word(uow, self._d, self._caller.provider_id, tx, result)
            return self._view(uow, tx)

    def list(
        self,
        after: str | None = None,
        limit: int = 50,
        statuses: Collection[TxStatus] | None = None,
        created_from: date | None = None,
        created_to: date | None = None,
    ) -> tuple[list[Transaction], bool]:
        """Newest first. Filters: status, and the days created (inclusive, on the merchant's
        calendar)."""
        if not 1 <= limit <= PAGE_MAX:
            raise ValidationError.for_field("limit", f"must be between 1 and {PAGE_MAX}")
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            since, until = day_range(merchant, created_from, created_to)
            rows = uow.transactions.list(
                merchant.id,
                after=after,
                limit=limit + 1,
                statuses=[s.value for s in statuses] if statuses else None,
                since=since,
                until=until,
            )
        return rows[:limit], len(rows) > limit

    # --- once per form ---------------------------------------------------------------------

    def follow_up_once(
        self,
        operation: str,
        gateway_name: str,
        transaction_id: str,
        amount: Money | None,
        idempotency_key: str,
    ) -> tuple[TransactionView, bool]:
        """A refund or void at most once per key, for callers that say whether it was a
        replay (the portal's forms carry a key each): ``refund``/``void`` with the key, and
        ``True`` when the same request had already been made under it (nothing sent again).
        The key with another request is 422, while the first still runs 409."""
        if operation not in ("refund", "void"):
            raise ValidationError.for_field("operation", "must be refund or void")
        if operation == "refund":
            key, under = self._in_process(
                "refund", idempotency_key, f"{gateway_name}\n{transaction_id}\n{amount!r}"
            )
            answer = self._refund(gateway_name, transaction_id, amount, key, under)
        else:
            key, under = self._in_process(
                "void", idempotency_key, f"{gateway_name}\n{transaction_id}"
            )
            answer = self._void(gateway_name, transaction_id, key, under)
        return self._view_of(answer), answer.replayed
