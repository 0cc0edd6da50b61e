"""The OpenAPI document as callers need it, completed in one place after Litestar builds it.

Litestar writes each operation from its route: parameters, body and success response. What a
route does not say is added here, keyed by path and method, so the routes stay about HTTP:

- every error an operation can return, with its real status, as ``application/problem+json``
  with the ``Problem`` schema (the shapes ``payhub_server.problems`` writes);
- a description for every operation, and request and response examples recorded from a real
  run (``openapi_examples.json``, rewritten by ``python -m tests.http.api_tour``);
- links from each create to the reads and moves of what it made (stateful clients and
  schemathesis follow them);
- money typed as what the wire carries: a JSON number (``payhub_server.encoding``).

The random placeholder examples Litestar invents for response models are dropped: an example
here is one a real server gave.
"""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from litestar.openapi.spec import OpenAPIType, Schema
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

from payhub.domain.accounts import DISPLAY_NAME_MAX, EXTERNAL_REFERENCE_MAX
from payhub_server.problems import PROBLEM_JSON, PROBLEM_TYPES

Json = dict[str, Any]
_EXAMPLES = Path(__file__).resolve().parent / "openapi_examples.json"
_METHODS = ("get", "put", "post", "delete", "patch")


class DecimalAsNumber(OpenAPISchemaPlugin):
    """``Decimal`` is written as a JSON number (exact digits, never through float)."""

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        return value is Decimal

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        return Schema(type=OpenAPIType.NUMBER)


# Rules the domain enforces on single fields, stated in the schema (component, field).
FIELD_RULES: dict[tuple[str, str], Json] = {
    ("MerchantCreate", "externalReference"): {
        "minLength": 1,
        "maxLength": EXTERNAL_REFERENCE_MAX,
        "pattern": "^[A-Za-z0-9][A-Za-z0-9._:@-]*$",
        "description": "Letters, digits and . _ : @ -, starting with a letter or digit;"
        " unique per provider. Used in paths.",
    },
    ("MerchantCreate", "displayName"): {
        "minLength": 1,
        "maxLength": DISPLAY_NAME_MAX,
        "pattern": "^[^\\x00-\\x1f]*\\S[^\\x00-\\x1f]*$",
        "description": "Not blank, no control characters.",
    },
}


PROBLEM_SCHEMA: Json = {
    "type": "object",
    "title": "Problem",
    "description": "An RFC 9457 problem. `type` is a path on this server; GET it for what the"
    " problem means. Some problems carry more members (listed below).",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "examples": ["/problems/validation-error"]},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "instance": {"type": "string", "description": "The request's path."},
        "requestId": {
            "type": "string",
            "description": "Matches the X-Request-Id header and the server's log line.",
        },
        "errors": {
            "type": "array",
            "description": "400 validation-error: each field at fault.",
            "items": {
                "type": "object",
                "required": ["field", "message"],
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
            },
        },
        "retryAfter": {"type": "integer", "description": "429: seconds to wait."},
        "gateway": {"type": "string", "description": "402, 502, 504: the gateway's name."},
        "retrySafe": {
            "type": "boolean",
            "description": "402, 502, 504: retrying with the same Idempotency-Key is safe.",
        },
        "declineCode": {"type": "string"},
        "gatewayMessage": {"type": "string"},
        "gatewayRequestId": {"type": "string"},
        "transactionId": {
            "type": "string",
            "description": "The ledger row of a failed payment attempt.",
        },
    },
    "additionalProperties": True,
}

# Each error status: what it means here, and the problem types it carries.
ERRORS: dict[int, tuple[str, tuple[str, ...]]] = {
    400: (
        "The request is not valid: a field, parameter or body (errors lists each field), or"
        " it carried raw card or bank data.",
        ("validation-error", "raw-card-data"),
    ),
    401: ("No X-Api-Key, or an unknown or revoked one.", ("unauthenticated",)),
    402: (
        "The gateway declined, or the payment method token cannot be used.",
        ("payment-declined", "payment-method-invalid"),
    ),
    403: (
        "The key may not do this: a merchant key outside its merchant, or a provider-only"
        " operation.",
        ("forbidden",),
    ),
    404: ("The object does not exist for this caller.", ("not-found",)),
    409: (
        "The request clashes with the current state (a duplicate, an illegal move), or a"
        " request with the same Idempotency-Key is still running.",
        ("conflict",),
    ),
    413: ("The body is over 1 MiB.", ("payload-too-large",)),
    415: (
        "The body is not JSON (send Content-Type: application/json).",
        ("unsupported-media-type",),
    ),
    422: (
        "The Idempotency-Key was already used with a different request.",
        ("idempotency-key-reused",),
    ),
    429: ("A rate limit is reached; see Retry-After.", ("rate-limited",)),
    502: (
        "The gateway failed, could not be reached, or refused the merchant's credentials.",
        ("gateway-unavailable", "gateway-credentials-rejected", "gateway-error"),
    ),
    503: ("The capability is not configured or not available here.", ("unavailable",)),
    504: (
        "The gateway did not answer in time; retry with the same Idempotency-Key.",
        ("gateway-timeout",),
    ),
}

# Operations that reach a payment gateway: 402 (declines), 502, 503 (gateway not available
# yet) and 504. (method, path) as the document writes them.
_GATEWAY_OPS = {
    ("post", "/api/payments/charge"),
    ("post", "/api/payments/{gateway}/transactions/{transaction_id}/capture"),
    ("post", "/api/payments/{gateway}/transactions/{transaction_id}/refund"),
    ("post", "/api/payments/{gateway}/transactions/{transaction_id}/void"),
    ("get", "/api/payments/{gateway}/transactions/{transaction_id}"),
    ("post", "/api/merchant-accounts/{ref}/customers/{customer_id}/payment-methods/{gateway}"),
    (
        "delete",
        "/api/merchant-accounts/{ref}/customers/{customer_id}/payment-methods/{payment_method_id}",
    ),
    ("post", "/api/merchant-accounts/{ref}/scheduled-payments/{scheduled_payment_id}/run-now"),
}
# Further statuses of single operations, beyond the rules in ``_statuses``.
_EXTRA: dict[tuple[str, str], set[int]] = {
    ("put", "/api/merchant-accounts/{ref}/credentials/{gateway}"): {503},
    ("post", "/api/merchant-accounts/{ref}/invoices/{invoice_number}/send"): {503},
    ("post", "/api/merchant-accounts/{ref}/invoices"): {503},
    ("post", "/api/short-links"): {503},
    ("get", "/api/short-links"): {404},  # merchantReference names no merchant
    # merchantReference names no merchant (404), or not a merchant key's own (403)
    ("get", "/api/webhook-endpoints"): {403, 404},
    ("post", "/api/webhook-endpoints"): {403, 404},
    ("get", "/api/events"): {404},  # merchantReference names no merchant
    ("post", "/webhooks/twilio/sms"): {400, 401, 413},  # 401: not signed by Twilio
    ("post", "/webhooks/twilio/status"): {400, 401, 413},
    # 400: not a notification body; 401: the webhook's basic authentication failed; 404: an
    # address no credentials hold (or a gateway that posts none)
    ("post", "/webhooks/gateways/{gateway}/{token}"): {400, 401, 404, 413},
    ("post", "/webhooks/intuit"): {400, 404, 413},  # 404: not signed by the Intuit app
}


def _statuses(method: str, path: str, op: Json, audience: str) -> set[int]:
    """The error statuses ``method path`` can answer with."""
    found = set(_EXTRA.get((method, path), set()))
    if not path.startswith("/api/"):
        return found
    params = op.get("parameters", [])
    has_body = "requestBody" in op
    found |= {401, 429}
    if params or has_body:
        found.add(400)
    if has_body:
        found |= {413, 415}
    in_path = "{" in path
    merchant_header = any(p.get("name") == "X-Merchant-Reference" for p in params)
    if in_path or merchant_header:
        found.add(404)
    if audience != "merchant" or "{ref}" in path or merchant_header:
        found.add(403)
    if method != "get":
        found.add(409)
    if any(p.get("name") == "Idempotency-Key" for p in params):
        found.add(422)
    if (method, path) in _GATEWAY_OPS:
        found |= {402, 502, 503, 504}
    return found


def _problem_response(status: int, path: str, op: Json) -> Json:
    text, types = ERRORS[status]
    named = ", ".join(f"`{t}`" for t in types)
    example: Json = {
        "type": f"/problems/{types[0]}",
        "title": _TITLES.get(types[0], "Request refused"),
        "status": status,
        "detail": PROBLEM_TYPES.get(types[0], text).replace("`", ""),
        "instance": path,
        "requestId": "req_5f2c1e9a7b3d4c6e",
    }
    if status == 400:
        field, message = _a_bad_field(op)
        example["detail"] = f"{field}: {message}"
        example["errors"] = [{"field": field, "message": message}]
    if status == 429:
        example["retryAfter"] = 30
    return {
        "description": f"{text} Problem type: {named}.",
        "content": {
            PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}, "example": example}
        },
    }


def _a_bad_field(op: Json) -> tuple[str, str]:
    """A field this operation could fault, for its 400 example."""
    if "requestBody" in op:
        return "body", "a JSON request body is required"
    for parameter in op.get("parameters", []):
        if parameter.get("in") in ("query", "header"):
            return parameter["name"], "is not valid"
    return "path", "is not valid"


def _plain_parameters(op: Json) -> None:
    """A header or query parameter is absent or a string: ``string | null`` reads as the
    one type it can be."""
    for parameter in op.get("parameters", []):
        schema = parameter.get("schema", {})
        kinds = schema.get("oneOf", [])
        real = [k for k in kinds if k != {"type": "null"}]
        if len(kinds) == 2 and len(real) == 1 and not parameter.get("required"):
            schema.pop("oneOf")
            schema.update(real[0])


_TITLES = {
    "validation-error": "Your request is not valid",
    "unauthenticated": "Authentication required",
    "forbidden": "Forbidden",
    "not-found": "Not found",
    "conflict": "Conflict",
    "rate-limited": "Too many requests",
    "unavailable": "Not available",
    "payment-declined": "The payment was declined",
    "gateway-unavailable": "The payment gateway is unavailable",
    "gateway-timeout": "The payment gateway did not answer in time",
    "payload-too-large": "Request body too large",
    "unsupported-media-type": "Unsupported media type",
    "idempotency-key-reused": "Idempotency-Key used for a different request",
}


def _strip_examples(node: Any) -> None:
    """Drop the placeholder ``examples`` Litestar generated (random strings, reprs)."""
    if isinstance(node, dict):
        node.pop("examples", None)
        for value in node.values():
            _strip_examples(value)
    elif isinstance(node, list):
        for value in node:
            _strip_examples(value)


@cache
def recorded_examples() -> dict[str, Json]:
    """operationId -> {"request": body, "response": body, "status": code}, from a real run."""
    if not _EXAMPLES.exists():
        return {}
    loaded: dict[str, Json] = json.loads(_EXAMPLES.read_text(encoding="utf-8"))
    return loaded


def _add_examples(op: Json) -> None:
    recorded = recorded_examples().get(op.get("operationId", ""))
    if not recorded:
        return
    if "request" in recorded and "requestBody" in op:
        for media in op["requestBody"].get("content", {}).values():
            media["example"] = recorded["request"]
    if "response" not in recorded:
        return
    # The recorded success, and any other success of the same shape (a create that may
    # also answer 200 with what exists).
    status = str(recorded.get("status", ""))
    answered = op.get("responses", {}).get(status, {}).get("content", {})
    shapes = [m.get("schema") for t, m in answered.items() if "json" in t]
    for code, response in op.get("responses", {}).items():
        if not code.startswith("2"):
            continue
        for media_type, media in response.get("content", {}).items():
            if "json" in media_type and (code == status or media.get("schema") in shapes):
                media["example"] = recorded["response"]


# Litestar's stock descriptions of success responses, in plainer words.
_PLAIN_WORDS = {
    "Request fulfilled, document follows": "OK",
    "Document created, URL follows": "Created",
    "Request fulfilled, nothing follows": "Done; no body",
}


def _describe(op: Json) -> None:
    """Every operation has a summary and a description (its route's docstring, if any)."""
    if not op.get("description"):
        op["description"] = op.get("summary", "") + "."
    if not op.get("summary"):
        op["summary"] = op["description"].split(".")[0]
    for response in op.get("responses", {}).values():
        text = response.get("description", "")
        response["description"] = _PLAIN_WORDS.get(text, text)


_PLAIN = re.compile(r"[^A-Za-z0-9]+")


def complete(schema: Json, audiences: dict[tuple[str, str], str]) -> Json:
    """A copy of Litestar's ``schema`` with errors, descriptions, examples and links."""
    doc = copy.deepcopy(schema)
    _strip_examples(doc.get("components", {}).get("schemas", {}))
    for item in doc.get("paths", {}).values():
        for method in _METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                _strip_examples(op.get("parameters", []))
                _strip_examples(op.get("responses", {}))
    components = doc.setdefault("components", {})
    components.setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    for path, item in doc.get("paths", {}).items():
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or "responses" not in op:
                continue
            audience = audiences.get((path, method), "public")
            statuses = _statuses(method, path, op, audience)
            responses = op["responses"]
            for code in list(responses):
                if code.isdigit() and int(code) >= 400:
                    del responses[code]  # Litestar's generic 400: not what payhub writes
            for status in sorted(statuses):
                responses[str(status)] = _problem_response(status, path, op)
            _describe(op)
            _plain_parameters(op)
            _add_examples(op)
            if audience == "public":
                op["security"] = []  # no X-Api-Key: public pages, webhooks, health
    _closed_bodies(doc)
    for (component, field), rules in FIELD_RULES.items():
        found = doc["components"]["schemas"].get(component, {}).get("properties", {})
        if field in found:
            found[field].update(rules)
    add_links(doc)
    return doc


def _refs(node: Any) -> set[str]:
    """Component schema names ``node`` refers to, directly."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[-1])
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found


def _closed_bodies(doc: Json) -> None:
    """Request bodies refuse unknown fields (every input struct has ``forbid_unknown_fields``):
    say so with ``additionalProperties: false`` on each object schema a body uses."""
    schemas: Json = doc.get("components", {}).get("schemas", {})
    todo = set()
    for item in doc.get("paths", {}).values():
        for method in _METHODS:
            op = item.get(method)
            if isinstance(op, dict) and "requestBody" in op:
                todo |= _refs(op["requestBody"])
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        schema = schemas[name]
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
        todo |= _refs(schema)


# --- links: after a create, where its result can be read and moved ---------------------------

# (create operation's path, the field of its response, the path parameter it fills).
LINKS: list[tuple[str, str, str]] = [
    ("/api/merchant-accounts", "externalReference", "ref"),
    ("/api/merchant-accounts/{ref}/customers", "customerId", "customer_id"),
    ("/api/merchant-accounts/{ref}/products", "productId", "product_id"),
    ("/api/merchant-accounts/{ref}/product-categories", "categoryId", "category_id"),
    ("/api/merchant-accounts/{ref}/tax-rates", "taxRateId", "tax_rate_id"),
    ("/api/merchant-accounts/{ref}/locations", "locationId", "location_id"),
    ("/api/merchant-accounts/{ref}/invoices", "invoiceNumber", "invoice_number"),
    (
        "/api/merchant-accounts/{ref}/scheduled-payments",
        "scheduledPaymentId",
        "scheduled_payment_id",
    ),
    ("/api/short-links", "code", "code"),
    ("/api/webhook-endpoints", "endpointId", "endpoint_id"),
]


# Creates whose results are used under another path: (create path, target path prefix,
# parameters the link passes).
_OTHER_LINKS: list[tuple[str, str, Json]] = [
    (
        "/api/payments/charge",
        "/api/payments/{gateway}/transactions/{transaction_id}",
        {
            "gateway": "$response.body#/gateway",
            "transaction_id": "$response.body#/transactionId",
            "header.X-Merchant-Reference": "$request.header.X-Merchant-Reference",
        },
    ),
    (
        "/api/merchant-accounts/{ref}/customers/{customer_id}/payment-methods/{gateway}",
        "/api/merchant-accounts/{ref}/customers/{customer_id}/payment-methods/{payment_method_id}",
        {
            "ref": "$request.path.ref",
            "customer_id": "$request.path.customer_id",
            "payment_method_id": "$response.body#/paymentMethodId",
        },
    ),
]


def _success(op: Json) -> Json | None:
    responses: Json = op.get("responses", {})
    return next((r for code, r in responses.items() if code in ("200", "201")), None)


def _link_all(success: Json, paths: dict[str, Json], prefix: str, parameters: Json) -> None:
    for path, item in paths.items():
        if path != prefix and not path.startswith(prefix + "/"):
            continue
        for method in _METHODS:
            target = item.get(method)
            if isinstance(target, dict) and "operationId" in target:
                name = _PLAIN.sub("", target["operationId"])
                link = {"operationId": target["operationId"], "parameters": parameters}
                success.setdefault("links", {})[name] = link


def add_links(doc: Json) -> None:
    """OpenAPI links from each create's success response to the operations on what it made:
    ``{create}/{id}`` and ``{create}/{id}/<action>``, passing the path parameters along."""
    paths: dict[str, Json] = doc.get("paths", {})
    for create_path, field, param in LINKS:
        create = paths.get(create_path, {}).get("post")
        if not isinstance(create, dict):
            continue
        success = _success(create)
        if success is None:
            continue
        links: Json = {}
        for path, item in paths.items():
            rest = path.removeprefix(create_path + "/{" + param + "}")
            if rest == path or "{" in rest or rest.count("/") > 1:
                continue
            for method in _METHODS:
                target = item.get(method)
                if not isinstance(target, dict) or "operationId" not in target:
                    continue
                parameters: Json = {param: f"$response.body#/{field}"}
                if "{ref}" in create_path:
                    parameters["ref"] = "$request.path.ref"
                name = _PLAIN.sub("", target["operationId"])
                links[name] = {"operationId": target["operationId"], "parameters": parameters}
        if links:
            success["links"] = links
    for create_path, prefix, parameters in _OTHER_LINKS:
        create = paths.get(create_path, {}).get("post")
        found = _success(create) if isinstance(create, dict) else None
        if found is not None:
            _link_all(found, paths, prefix, parameters)
