"""Braintree: every GraphQL document the adapter defines or sends passes graphql-core's document
rules, the validator catches the unused fragment the refund mutation used to carry, and the
adapter maps answers shaped like the GraphQL guides' examples (``data.<mutation>.transaction``
with a status, ``extensions.requestId``) to the right neutral results."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

import payhub.adapters.gateways.braintree.adapter as bt
from payhub.adapters.gateways.braintree.adapter import BraintreeGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayStatus,
    MethodType,
    PaymentSource,
)
from tests.gateways.braintree.contract.validator import document_errors, validate_document
from tests.gateways.braintree.fake import PRIVATE_KEY, PUBLIC_KEY, FakeBraintree
from tests.gateways.contracts import ContractViolation
from tests.gateways.contracts.replay import replaying

CREDS = GatewayCredentials(PRIVATE_KEY, sandbox=True, fields={"publicKey": PUBLIC_KEY})
TX = "dHJhbnNhY3Rpb25fYzlkNmR6"
DOCUMENTS = {
    name: value
    for name, value in vars(bt).items()
    if name.isupper() and isinstance(value, str) and ("query " in value or "mutation " in value)
}


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def check(request: httpx.Request) -> None:
    body = json.loads(request.content)
    validate_document(body["query"], body.get("variables"))


def data(payload: dict[str, Any]) -> httpx.Response:
    return httpx.Response(
        200, json={"data": payload, "extensions": {"requestId": "a-uuid-for-the-request"}}
    )


ACCOUNTS = data(
    {
        "viewer": {
            "merchant": {
                "id": "merchant_id",
                "merchantAccounts": {
                    "edges": [
                        {
                            "node": {
                                "id": "usd_account",
                                "currencyCode": "USD",
                                "isDefault": True,
                                "status": "ACTIVE",
                            }
                        }
                    ]
                },
            }
        }
    }
)


def transaction(status: str, value: str = "15.00", **extra: Any) -> dict[str, Any]:
    return {
        "id": TX,
        "orderId": "k",
        "status": status,
        "amount": {"value": value, "currencyCode": "USD"},
        "paymentMethodSnapshot": {"__typename": "CreditCardDetails"},
        "refunds": [],
        "statusHistory": [{"__typename": "AuthorizedEvent", "status": status}],
        **extra,
    }


def sale(capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        usd("15.00"), PaymentSource(MethodType.CARD, token="id_of_payment_method"), capture, "k"
    )


# --- the validator bites -------------------------------------------------------------------


def test_the_adapters_documents_all_pass() -> None:
    assert len(DOCUMENTS) >= 12
    for name, document in DOCUMENTS.items():
        assert document_errors(document) == [], name


def test_the_old_refund_mutation_with_an_unused_fragment_is_caught() -> None:
    # What the adapter sent until issue 14: the refund mutation plus every fragment.
    old = bt._REFUND.replace(bt._REFUND_FIELDS, "") + bt._TRANSACTION_FIELDS
    with pytest.raises(ContractViolation, match="Fragment 'PayhubTransaction' is never used"):
        validate_document(old)


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        (
            bt._NODE.replace("query Transaction($id: ID!)", "query Transaction($id: ID!, $x: ID)"),
            "Variable '\\$x' is never used",
        ),
        (bt._NODE.replace("node(id: $id)", "node(id: $idd)"), "Variable '\\$idd' is not defined"),
        (bt._NODE.replace("...PayhubTransaction", "...PayhubTransactoin"), "Unknown fragment"),
        (bt._CAPTURE.replace("{ clientMutationId", "clientMutationId"), "syntax"),
        (bt._CREATE_CUSTOMER + bt._CREATE_CUSTOMER, "only one operation named"),
    ],
)
def test_broken_documents_fail(broken: str, why: str) -> None:
    with pytest.raises(ContractViolation, match=why):
        validate_document(broken)


def test_a_variable_the_document_does_not_declare_fails() -> None:
    with pytest.raises(ContractViolation, match="\\$inputt is not declared"):
        validate_document(bt._NODE, {"id": TX, "inputt": {}})


def test_the_fake_refuses_invalid_graphql_and_a_misspelled_input_field() -> None:
    fake = FakeBraintree()
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        headers = {
            "Braintree-Version": bt.API_VERSION,
            "Authorization": httpx.BasicAuth(PUBLIC_KEY, PRIVATE_KEY)._auth_header,
        }
        old = bt._REFUND.replace(bt._REFUND_FIELDS, "") + bt._TRANSACTION_FIELDS
        variables = {"input": {"transactionId": TX}}
        answer = client.post(
            "https://payments.sandbox.braintree-api.com/graphql",
            json={"query": old, "variables": variables},
            headers=headers,
        ).json()
        assert answer["errors"][0]["extensions"]["errorClass"] == "VALIDATION"
        assert "never used" in fake.violations[0]
        # A misspelled input field: graphql-core cannot see it without Braintree's schema; the
        # fake's input table (transcribed from schema.graphql) does.
        misspelled = {"input": {"transactionId": TX, "refnud": {"amount": "1.00"}}}
        answer = client.post(
            "https://payments.sandbox.braintree-api.com/graphql",
            json={"query": bt._REFUND, "variables": misspelled},
            headers=headers,
        ).json()
        assert answer["errors"][0]["extensions"]["errorClass"] == "VALIDATION"
        assert "refnud" in answer["errors"][0]["message"]


# --- answers shaped like the guides' examples ----------------------------------------------


def test_a_sale_submitted_for_settlement_is_captured() -> None:
    answers = [
        ACCOUNTS,
        data({"chargePaymentMethod": {"transaction": transaction("SUBMITTED_FOR_SETTLEMENT")}}),
    ]
    with replaying(answers, check) as (client, replay):
        result = BraintreeGateway(client).charge(CREDS, sale())
    assert (result.status, result.reference, result.amount) == (
        GatewayStatus.CAPTURED,
        TX,
        usd("15.00"),
    )
    sent = json.loads(replay.requests[1].content)["variables"]["input"]
    assert sent["transaction"] == {
        "amount": "15.00",
        "merchantAccountId": "usd_account",
        "orderId": "k",
    }


def test_an_authorization() -> None:
    answers = [
        ACCOUNTS,
        data({"authorizePaymentMethod": {"transaction": transaction("AUTHORIZED")}}),
    ]
    with replaying(answers, check) as (client, _):
        result = BraintreeGateway(client).charge(CREDS, sale(capture=False))
    assert result.status is GatewayStatus.AUTHORIZED


def test_capture_refund_void_and_status() -> None:
    captured = transaction("SUBMITTED_FOR_SETTLEMENT", "10.00")
    settled = transaction("SETTLED")
    refund = {
        "id": "cmVmdW5kXzEyMw",
        "orderId": "r",
        "status": "SUBMITTED_FOR_SETTLEMENT",
        "amount": {"value": "5.00", "currencyCode": "USD"},
    }
    voided = {**transaction("VOIDED"), "__typename": "Transaction"}
    answers = [
        data({"captureTransaction": {"transaction": captured}}),
        data({"node": {**settled, "__typename": "Transaction"}}),
        data({"refundTransaction": {"refund": refund}}),
        data({"reverseTransaction": {"reversal": voided}}),
        data(
            {
                "node": {
                    **settled,
                    "__typename": "Transaction",
                    "refunds": [{**refund, "amount": {"value": "15.00", "currencyCode": "USD"}}],
                }
            }
        ),
    ]
    with replaying(answers, check) as (client, _):
        gateway = BraintreeGateway(client)
        capture = gateway.capture(CREDS, TX, usd("10.00"), "c")
        assert (capture.status, capture.amount) == (GatewayStatus.CAPTURED, usd("10.00"))
        refunded = gateway.refund(CREDS, TX, usd("5.00"), "r")
        assert (refunded.status, refunded.amount) == (GatewayStatus.REFUNDED, usd("5.00"))
        assert gateway.void(CREDS, TX, "v").status is GatewayStatus.VOIDED
        assert gateway.status(CREDS, TX).status is GatewayStatus.REFUNDED


def test_a_processor_decline() -> None:
    declined = transaction(
        "PROCESSOR_DECLINED",
        statusHistory=[
            {
                "__typename": "ProcessorDeclinedEvent",
                "status": "PROCESSOR_DECLINED",
                "processorResponse": {"legacyCode": "2001", "message": "Insufficient Funds"},
            }
        ],
    )
    answers = [ACCOUNTS, data({"chargePaymentMethod": {"transaction": declined}})]
    with replaying(answers, check) as (client, _), pytest.raises(Declined) as caught:
        BraintreeGateway(client).charge(CREDS, sale())
    assert caught.value.decline_code == "insufficient_funds"
    assert caught.value.gateway_message == "Insufficient Funds"
