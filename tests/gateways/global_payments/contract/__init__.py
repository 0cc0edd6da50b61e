"""Global Payments' contract: the GP-API request builders of Global Payments' own Python SDK
(``globalpayments-api`` 2.0.8), used as an oracle.

GP-API publishes no machine-readable schema in a package, and the SDK builds its request
bodies in code rather than from models. So for each request payhub sends, the SDK is asked
to build its own request for the same operation (sale, authorization, capture, refund,
reversal, transaction detail, token usage update, access token), from the same inputs
(amount, currency, reference, token, account, country), and the two are compared:

- the method and endpoint must be the SDK's;
- every field payhub sends must be one the SDK sends for that operation, with the SDK's
  value where both carry it (so ``type``, ``channel``, ``capture_mode``, ``entry_mode``,
  the amount's minor-unit string, … are the SDK's);
- every field the SDK sends must be sent too, except those listed as optional per
  operation (``amount`` of a reversal: without it the whole authorization is reversed).

One known SDK fault is not copied: it converts amounts through ``float`` and truncates
(19.99 USD becomes "1998"), so amounts are checked as exact minor-unit strings instead.

Enumerations the SDK declares (``TransactionStatus``, ``PaymentMethodUsageMode``) bound the
values the fake may answer with and payhub may send.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from globalpayments.api import GpApiConfig
from globalpayments.api.builders.request_builder.GpApi.AccessTokenRequest import (
    AccessTokenRequest,
)
from globalpayments.api.builders.request_builder.GpApi.GpApiAuthorizationRequestBuilder import (
    GpApiAuthorizationRequestBuilder,
)
from globalpayments.api.builders.request_builder.GpApi.GpApiManagementRequestBuilder import (
    GpApiManagementRequestBuilder,
)
from globalpayments.api.builders.request_builder.GpApi.GpApiReportRequestBuilder import (
    GpApiReportRequestBuilder,
)
from globalpayments.api.entities import Transaction
from globalpayments.api.entities.enums import CardChannel, PaymentMethodUsageMode
from globalpayments.api.entities.gp_api.access_token_info import AccessTokenInfo
from globalpayments.api.entities.transaction_status import TransactionStatus
from globalpayments.api.payment_methods import CreditCardData
from globalpayments.api.services import ReportingService

from payhub.domain.money import minor_unit_exponent
from tests.gateways.contracts import ContractViolation

STATUSES = frozenset(
    v for k, v in vars(TransactionStatus).items() if k.isupper() and isinstance(v, str)
)
USAGE_MODES = frozenset(mode.value for mode in PaymentMethodUsageMode)
_OPTIONAL = {"reversal": {"amount"}}


def validate_request(method: str, path: str, body: dict[str, Any] | None) -> None:
    """Raise ``ContractViolation`` unless the SDK would send this for the same operation.

    ``path`` is the part after ``/ucp``."""
    operation, (sdk_method, sdk_path, expected) = _sdk_request(method, path, body or {})
    if (method, path) != (sdk_method, sdk_path):
        raise ContractViolation(
            f"the SDK sends {operation} as {sdk_method} {sdk_path}, not {method} {path}"
        )
    if operation == "token usage":  # the SDK serialises this body wrongly: compare names
        unknown = set(body or {}) - set(expected)
        if unknown:
            raise ContractViolation(f"{operation}: the SDK sends no {sorted(unknown)}")
        if (body or {}).get("usage_mode") not in USAGE_MODES:
            raise ContractViolation(f"usage_mode must be one of {sorted(USAGE_MODES)}")
        return
    if "amount" in expected:
        # The SDK's StringUtils.to_numeric goes through float and truncates (19.99 -> "1998")
        # and always scales by 100; GP-API wants the exact amount in the currency's minor
        # unit, which _decimal already checked is what payhub sent.
        expected["amount"] = (body or {}).get("amount")
    _compare(body or {}, expected, operation, _OPTIONAL.get(operation, set()))


def validate_status(status: object) -> None:
    if status not in STATUSES:
        raise ContractViolation(f"{status!r} is not a GP-API TransactionStatus {sorted(STATUSES)}")


def _config(body: dict[str, Any]) -> GpApiConfig:
    config = GpApiConfig()
    config.channel = CardChannel.CARD_NOT_PRESENT
    # The SDK always sends these from its configuration: a body without them is flagged.
    config.country = body.get("country") or "US"
    info = AccessTokenInfo()
    info.transaction_processing_account_name = body.get("account_name") or "transaction_processing"
    config.access_token_info = info
    return config


def _decimal(minor: object, currency: object) -> Decimal | None:
    if minor is None:
        return None
    if not (isinstance(minor, str) and minor.isdigit()):
        raise ContractViolation(f"amount {minor!r} is not the SDK's minor-unit string")
    exponent = minor_unit_exponent(str(currency)) if currency else 2
    return Decimal(minor).scaleb(-exponent)


def _sdk_request(
    method: str, path: str, body: dict[str, Any]
) -> tuple[str, tuple[str, str, dict[str, Any]]]:
    config = _config(body)
    if path == "/accesstoken":
        request = AccessTokenRequest(
            str(body.get("app_id")),
            str(body.get("nonce")),
            str(body.get("secret")),
            str(body.get("grant_type")),
            seconds_to_expire=body.get("seconds_to_expire"),
            permissions=body.get("permissions"),
        )
        return "access token", ("POST", "/accesstoken", request.gen_body())
    if path == "/transactions" and method == "POST":
        card = CreditCardData()
        card.token = (body.get("payment_method") or {}).get("id")
        amount = _decimal(body.get("amount"), body.get("currency"))
        modes = {"AUTO": card.charge, "LATER": card.authorize}
        if body.get("capture_mode") not in modes:
            raise ContractViolation(f"capture_mode {body.get('capture_mode')!r}: not AUTO/LATER")
        builder = modes[body["capture_mode"]](amount).with_currency(body.get("currency"))
        builder = builder.with_client_transaction_id(body.get("reference"))
        if "description" in body:
            builder = builder.with_description(body["description"])
        built = GpApiAuthorizationRequestBuilder().build_request(builder, config)
        return "a sale or authorization", _parsed(built)
    match = re.fullmatch(r"/transactions/([^/]+)(?:/(capture|refund|reversal))?", path)
    if match:
        transaction = Transaction.from_id(match.group(1))
        action = match.group(2)
        if action is None:
            built = GpApiReportRequestBuilder().build_request(
                ReportingService.transaction_detail(match.group(1)), config
            )
            return "transaction detail", _parsed(built)
        amount = _decimal(body.get("amount"), body.get("currency") or "USD")
        builder = {
            "capture": lambda: transaction.capture(amount),
            "refund": lambda: transaction.refund(amount),
            "reversal": lambda: transaction.reverse(amount),
        }[action]()
        built = GpApiManagementRequestBuilder().build_request(builder, config)
        return action, _parsed(built)
    match = re.fullmatch(r"/payment-methods/([^/]+)(/.*)?", path)
    if match and method == "PATCH":
        card = CreditCardData()
        card.token = match.group(1)
        builder = card.update_token().with_payment_method_usage_mode(
            PaymentMethodUsageMode.MULTIPLE
        )
        built = GpApiManagementRequestBuilder().build_request(builder, config)
        return "token usage", _parsed(built)
    raise ContractViolation(f"the SDK builds no GP-API request like {method} {path}")


def _parsed(built: Any) -> tuple[str, str, dict[str, Any]]:
    body = json.loads(built.request_body) if built.request_body else {}
    return str(built.http_verb).upper(), built.endpoint, _without_none(body)


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    return value


def _compare(ours: Any, sdk: Any, where: str, optional: set[str]) -> None:
    if isinstance(sdk, dict):
        if not isinstance(ours, dict):
            raise ContractViolation(f"{where} must be an object")
        for key in ours.keys() - sdk.keys():
            raise ContractViolation(f"{where}: the SDK sends no field {key!r}")
        for key in sdk.keys() - ours.keys() - optional:
            raise ContractViolation(f"{where}: the SDK also sends {key!r}")
        for key in ours.keys() & sdk.keys():
            _compare(ours[key], sdk[key], f"{where}.{key}", set())
        return
    if ours != sdk:
        raise ContractViolation(f"{where}: {ours!r} where the SDK sends {sdk!r}")
