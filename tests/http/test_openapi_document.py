"""The OpenAPI document is valid 3.1 and complete: descriptions, examples, errors, links.

``openapi-spec-validator`` (not ours) judges validity; the examples are checked against their
own schemas with ``openapi-schema-validator``'s 3.1 dialect. Schemathesis then holds the
running server to the document (tests/e2e/test_schemathesis.py).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from payhub import PayHub
from payhub.domain.accounts import clean_external_reference
from payhub.domain.errors import ValidationError
from payhub_server.openapi_doc import recorded_examples

Client = TestClient[Litestar]
Docs = dict[str, Any]
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Docs:
    """Each view's document, the raw one and its text, from one app (built once: the
    document is the same for any database)."""
    from payhub_server import create_app

    tmp = tmp_path_factory.mktemp("openapi")
    hub = PayHub.open(f"sqlite:///{tmp / 'payhub.db'}", key_file=tmp / "payhub.key")
    found: Docs = {}
    with TestClient(create_app(hub)) as client:
        for view in ("all", "provider", "merchant"):
            response = client.get(f"/reference/{view}/openapi.json")
            assert response.status_code == 200
            found[view] = response.json()
        raw = client.get("/schema/openapi.json")
        found["raw"] = raw.json()
        found["text"] = raw.text
    hub.close()
    return found


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def check(doc: dict[str, Any], schema: dict[str, Any], value: Any) -> list[str]:
    """Errors of ``value`` against ``schema`` (refs resolved against the document)."""
    rooted = _rebase(copy.deepcopy(schema))
    registry: Registry[Any] = Registry().with_resource(
        "urn:payhub", Resource.from_contents(doc, default_specification=DRAFT202012)
    )
    found = OAS31Validator(rooted, registry=registry).iter_errors(value)
    return [f"{list(e.absolute_path)}: {e.message}" for e in found]


def _rebase(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: ("urn:payhub" + v if k == "$ref" and v.startswith("#") else _rebase(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rebase(v) for v in node]
    return node


@pytest.mark.parametrize("view", ["all", "provider", "merchant"])
def test_each_view_is_valid_openapi_3_1(docs: Docs, view: str) -> None:
    doc = docs[view]
    assert doc["openapi"].startswith("3.1")
    validate(doc)


def test_the_validator_can_fail(docs: Docs) -> None:
    doc = docs["all"]
    broken = copy.deepcopy(doc)
    del broken["paths"]["/api/gateways"]["get"]["responses"]["200"]["description"]
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


def test_the_raw_document_is_the_complete_one(docs: Docs) -> None:
    raw = docs["raw"]
    complete = docs["all"]
    assert raw["paths"] == complete["paths"]
    assert "Problem" in raw["components"]["schemas"]


def test_every_operation_has_a_summary_and_a_description(docs: Docs) -> None:
    for method, path, op in operations(docs["all"]):
        assert op.get("summary"), (method, path)
        assert op.get("description"), (method, path)


def test_every_error_is_a_documented_problem(docs: Docs) -> None:
    for method, path, op in operations(docs["all"]):
        errors = {int(code): r for code, r in op["responses"].items() if int(code) >= 400}
        if path.startswith("/api/"):
            assert {401, 429} <= set(errors), (method, path)
            if "{" in path:
                assert 404 in errors, (method, path)
            if "requestBody" in op:
                assert {400, 413, 415} <= set(errors), (method, path)
        for code, response in errors.items():
            content = response["content"]
            assert list(content) == ["application/problem+json"], (method, path, code)
            assert content["application/problem+json"]["schema"] == PROBLEM_REF
            assert content["application/problem+json"]["example"]["status"] == code


def test_gateway_operations_document_declines_and_gateway_failures(docs: Docs) -> None:
    doc = docs["all"]
    charge = doc["paths"]["/api/payments/charge"]["post"]["responses"]
    assert {"402", "502", "503", "504", "409", "422"} <= set(charge)
    assert "402" not in doc["paths"]["/api/merchant-accounts"]["post"]["responses"]


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_the_problem_schema_matches_what_the_server_writes(client: Client, docs: Docs) -> None:
    doc = docs["all"]
    problem = doc["components"]["schemas"]["Problem"]
    missing = client.get("/api/merchant-accounts/nope", headers={"X-Api-Key": "nope"})
    assert missing.status_code == 401
    assert not check(doc, problem, missing.json())
    assert check(doc, problem, {"title": "no type"})  # the check can fail


def test_every_body_has_a_request_and_a_response_example(docs: Docs) -> None:
    """Examples recorded from a real run (tests/http/api_tour.py) are in the document and
    fit their own schemas."""
    doc = docs["all"]
    for method, path, op in operations(doc):
        if path.startswith("/webhooks/"):
            continue  # Twilio's form posts, answered with TwiML
        if "requestBody" in op:
            media = op["requestBody"]["content"]["application/json"]
            assert "example" in media, (method, path)
            assert not check(doc, media["schema"], media["example"]), (method, path)
        successes = [r for code, r in op["responses"].items() if int(code) < 300]
        for response in successes:
            for media_type, media in response.get("content", {}).items():
                if "json" not in media_type:
                    continue
                assert "example" in media, (method, path)
                errors = check(doc, media["schema"], media["example"])
                assert not errors, (method, path, errors)


def test_an_example_that_does_not_fit_is_caught(docs: Docs) -> None:
    doc = docs["all"]
    schema = {"$ref": "#/components/schemas/MerchantOut"}
    good = recorded_examples()["ApiMerchantAccountsCreateMerchant"]["response"]
    assert not check(doc, schema, good)
    assert check(doc, schema, {**good, "displayName": 12})


def test_no_invented_placeholder_examples(docs: Docs) -> None:
    """Litestar's random placeholders (``"DwEkQQHiBrmXZcSFtoJx"``, reprs) are gone."""
    text = docs["text"]
    assert "Decimal(" not in text
    assert "Out(" not in text


def test_money_is_typed_as_the_json_number_it_is(docs: Docs) -> None:
    schemas = docs["all"]["components"]["schemas"]
    assert schemas["AmountOut"]["properties"]["value"]["type"] == "number"
    assert schemas["AmountIn"]["properties"]["value"]["type"] == "number"


def test_creates_link_to_the_reads_and_moves_of_what_they_made(docs: Docs) -> None:
    paths = docs["all"]["paths"]
    created = paths["/api/merchant-accounts/{ref}/invoices"]["post"]["responses"]["201"]
    links = {link["operationId"]: link for link in created["links"].values()}
    read = links["ApiMerchantAccountsRefInvoicesInvoiceNumberGetInvoice"]
    assert read["parameters"] == {
        "invoice_number": "$response.body#/invoiceNumber",
        "ref": "$request.path.ref",
    }
    charged = paths["/api/payments/charge"]["post"]["responses"]["201"]["links"]
    assert any(link["operationId"].endswith("Capture") for link in charged.values())
    all_ids = {op["operationId"] for _, _, op in operations(docs["all"])}
    for _, _, op in operations(docs["all"]):
        for response in op["responses"].values():
            for link in response.get("links", {}).values():
                assert link["operationId"] in all_ids


def test_public_operations_need_no_key_and_the_rest_do(docs: Docs) -> None:
    doc = docs["all"]
    assert doc["security"] == [{"apiKey": []}]
    health = doc["paths"]["/healthz"]["get"]
    assert health["security"] == []
    assert "security" not in doc["paths"]["/api/gateways"]["get"]  # the document's default


def test_request_bodies_refuse_unknown_fields(docs: Docs) -> None:
    """Every input struct forbids unknown fields; the document says so, nested ones too."""
    doc = docs["all"]
    schemas = doc["components"]["schemas"]
    assert schemas["ChargeIn"]["additionalProperties"] is False
    assert schemas["AmountIn"]["additionalProperties"] is False
    assert schemas["AddressIn"]["additionalProperties"] is False
    assert "additionalProperties" not in schemas["TransactionOut"]
    body = recorded_examples()["ApiMerchantAccountsCreateMerchant"]["request"]
    merchant = {"$ref": "#/components/schemas/MerchantCreate"}
    assert check(doc, merchant, {**body, "surprise": 1})


@pytest.mark.parametrize(
    "value", ["acme-42", "a", "A.b_c:d@e-f", "-lead", "has space", "", "x" * 100, "x" * 101, "é"]
)
def test_the_documented_reference_rule_is_the_domains(docs: Docs, value: str) -> None:
    """The externalReference pattern in the document accepts exactly what the domain does."""
    rule = docs["all"]["components"]["schemas"]["MerchantCreate"]["properties"]
    documented = not check(docs["all"], rule["externalReference"], value)
    try:
        clean_external_reference(value)
    except ValidationError:
        accepted = False
    else:
        accepted = True
    assert documented == accepted, value
