"""Heartland Portico's request contract, taken from Global Payments' own Python SDK.

The SDK (``globalpayments-api``) is the vendor's machine-readable statement of what Portico
accepts: its ``PorticoConnector`` builds every request element by element. ``reference``
drives it offline (a capturing transport, never the network) with the options payhub uses
and keeps the ``Ver1.0`` tree it would send per operation; ``check`` holds a request to it:
every element must sit at a path the SDK uses for that operation, siblings in the SDK's order.
"""

from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from functools import cache
from typing import Any

import httpx
from globalpayments.api import PorticoConfig, ServicesContainer
from globalpayments.api.entities import ECommerceInfo, Transaction
from globalpayments.api.entities.enums import ReportType
from globalpayments.api.gateways import Gateway
from globalpayments.api.gateways.gateway_response import GatewayResponse
from globalpayments.api.payment_methods import CreditCardData
from globalpayments.api.services import ReportingService

from tests.gateways import contracts

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
NS = "http://Hps.Exchange.PosGateway"
_KEY = "skapi_cert_contract_reference_key"
CONFIG = "payhub-contract"
_ANSWER = (
    f'<soap:Envelope xmlns:soap="{SOAP}"><soap:Body><PosResponse xmlns="{NS}"><Ver1.0>'
    "<Header><GatewayTxnId>1</GatewayTxnId><GatewayRspCode>0</GatewayRspCode>"
    "<GatewayRspMsg>Success</GatewayRspMsg></Header></Ver1.0></PosResponse></soap:Body>"
    "</soap:Envelope>"
)


class ContractViolation(contracts.ContractViolation):
    """A request Portico's SDK would never send: an element out of place or out of order."""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


@contextmanager
def sdk_talking_to(
    handler: Callable[[httpx.Request], httpx.Response] | None, key: str = _KEY
) -> Iterator[list[bytes]]:
    """The SDK configured for the certification host, its HTTP replaced: each request is
    recorded and handed to ``handler`` (a fake), or answered with a thin success."""
    sent: list[bytes] = []
    original = Gateway.send_request

    def send_request(self: Any, verb: str, endpoint: str, data: Any = None, _q: Any = None) -> Any:
        body = data if isinstance(data, bytes) else str(data).encode()
        sent.append(body)
        response = GatewayResponse()
        if handler is None:
            response.status_code, response.raw_response = 200, _ANSWER
        else:
            url = str(self.service_url) + endpoint
            answer = handler(
                httpx.Request(verb, url, content=body, headers={"Content-Type": "text/xml"})
            )
            response.status_code, response.raw_response = answer.status_code, answer.text
        return response

    Gateway.send_request = send_request  # type: ignore[method-assign]
    try:
        config = PorticoConfig()
        config.secret_api_key = key
        config.service_url = "https://cert.api2.heartlandportico.com"
        ServicesContainer.configure(config, CONFIG)
        yield sent
    finally:
        Gateway.send_request = original  # type: ignore[method-assign]


def _card(token: str = "supt_reference") -> CreditCardData:
    card = CreditCardData()
    card.token = token
    return card


def _ecommerce() -> ECommerceInfo:
    return ECommerceInfo()


def _run(builder: Any) -> None:
    with contextlib.suppress(Exception):  # only the request matters; the answer is thin
        builder.execute(CONFIG)


@cache
def reference() -> dict[str, ET.Element]:
    """Operation name -> the ``Ver1.0`` element the SDK sends for it."""
    amount = Decimal("10.00")
    with sdk_talking_to(None) as sent:
        for verb in ("charge", "authorize"):
            _run(
                getattr(_card(), verb)(amount)
                .with_currency("USD")
                .with_allow_duplicates(True)
                .with_client_transaction_id("ph-reference")
                .with_description("reference")
                .with_customer_id("cus_reference")
                .with_invoice_number("INV-1")
                .with_ecommerce_info(_ecommerce())
            )
        _run(
            _card()
            .verify()
            .with_request_multi_use_token(True)
            .with_customer_id("cus_reference")
            .with_client_transaction_id("ph-reference")
        )
        ref = Transaction.from_id("1234567890")
        _run(ref.capture(amount))
        _run(Transaction.from_id("1234567890").refund(amount).with_currency("USD"))
        _run(Transaction.from_id("1234567890").void())
        _run(Transaction.from_id("1234567890").reverse(amount))
        _run(ReportingService.transaction_detail("1234567890").with_timezone_conversion("UTC"))
        finder = ReportingService.find_transactions().with_timezone_conversion("UTC")
        # The SDK's where() names criteria by its GP-API enum values (clientTransactionId);
        # Portico's criterion is ClientTxnId, the name the SDK reads back from the answer.
        finder.search_criteria = {"ClientTxnId": "ph-reference"}
        _run(finder)
    found: dict[str, ET.Element] = {}
    for body in sent:
        version = ET.fromstring(body).find(f"{{{SOAP}}}Body/{{{NS}}}PosRequest/{{{NS}}}Ver1.0")  # noqa: S314
        assert version is not None, "the SDK sent no Ver1.0 element"
        transaction = version.find(f"{{{NS}}}Transaction")
        assert transaction is not None
        assert len(transaction) == 1
        found.setdefault(_local(transaction[0].tag), version)
    assert ReportType.FindTransactions  # the SDK still knows the report payhub's lookup uses
    return found


def operation(version: ET.Element) -> str:
    transaction = version.find(f"{{{NS}}}Transaction")
    if transaction is None or len(transaction) != 1:
        raise ContractViolation("a Portico request carries exactly one Transaction element")
    return _local(transaction[0].tag)


def check(version: ET.Element) -> None:
    """Raise ``ContractViolation`` unless ``version`` (a request's ``Ver1.0``) has only
    elements the SDK sends for its operation, at the same paths and in the same order."""
    name = operation(version)
    known = reference().get(name)
    if known is None:
        raise ContractViolation(f"Portico's SDK sends no {name}")
    header = version.find(f"{{{NS}}}Header")
    if header is not None:  # the header is common to all operations: the sale's has them all
        full = reference()["CreditSale"].find(f"{{{NS}}}Header")
        assert full is not None
        _compare(header, full, "Ver1.0/Header")
    for ours, theirs in (
        (version.find(f"{{{NS}}}Transaction"), known.find(f"{{{NS}}}Transaction")),
    ):
        assert theirs is not None
        if ours is None:
            raise ContractViolation("Ver1.0 has no Transaction")
        _compare(ours, theirs, "Ver1.0/Transaction")
    extra = [_local(c.tag) for c in version if _local(c.tag) not in ("Header", "Transaction")]
    if extra:
        raise ContractViolation(f"Ver1.0/{extra[0]} is not an element Portico's SDK sends")


def _compare(ours: ET.Element, theirs: ET.Element, path: str) -> None:
    if ours.tag != theirs.tag:
        raise ContractViolation(f"{path}: {_local(ours.tag)} is not {_local(theirs.tag)}")
    order = [child.tag for child in theirs]
    last = -1
    for child in ours:
        if child.tag not in order:
            allowed = ", ".join(_local(t) for t in order) or "none"
            raise ContractViolation(
                f"{path}/{_local(child.tag)} is not an element Portico's SDK sends here"
                f" (it sends: {allowed})"
            )
        position = order.index(child.tag)
        if position < last:
            raise ContractViolation(
                f"{path}/{_local(child.tag)} comes after an element the SDK sends after it"
            )
        last = position
        _compare(child, theirs[position], f"{path}/{_local(child.tag)}")
