"""Schemathesis, a tool nobody here wrote, against a real ``payhub serve`` process.

It reads the served OpenAPI document and runs every phase (the document's examples, coverage
of each schema's edges, random fuzzing, and stateful sequences along the document's links)
over every operation, with a real sandbox provider key. The path parameters and the merchant
header are pinned to live objects the API tour made first, so the operations do real work
instead of answering 404. The budget is bounded by a fixed seed and example count.

The checks are the document's promises: no 5xx, and every status, content type, response
header and body as documented. Each check can fail: ``test_a_broken_document_is_caught``
breaks one response schema and watches schemathesis report it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from payhub_server.openapi_doc import recorded_examples
from tests.e2e.servers import cli, create_provider, serve
from tests.http.api_tour import Tour, run, spares

# About 1-2 minutes; more on a busy machine, so more than the suite's 300 s default.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_headers_conformance,response_schema_conformance"
)
SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
REPORTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "schemathesis"  # git-ignored


class Served:
    def __init__(self, base: str, key: str, tour: Tour, cwd: Path) -> None:
        self.base = base
        self.key = key
        self.ids = tour.ids
        self.own = tour.own
        self.cwd = cwd


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("schemathesis")
    db_url = f"sqlite:///{tmp / 'payhub.db'}"
    key = create_provider(db_url, tmp)
    cli(db_url, tmp, "links", "domain", "set", "--environment", "Sandbox", "go.payhub.example")
    # Thousands of requests from one address, many deliberately unauthenticated, would spend
    # the rate-limit budgets (tests/http/test_rate_limits.py holds those) and turn the fuzz
    # run into 429s: the served process runs without them.
    quiet = {"PAYHUB_RATE_LIMITS": "off"}
    with (
        serve(db_url, tmp, extra_env=quiet) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        document = client.get("/schema/openapi.json").json()
        tour = spares(run(Tour(client, key, document)))
        yield Served(base, key, tour, tmp)


def config(served: Served, max_examples: int) -> Path:
    """schemathesis.toml: the pinned parameters and the generation budget."""
    pinned = {f"path.{name}": value for name, value in served.ids.items()}
    pinned["header.X-Merchant-Reference"] = served.ids["ref"]
    lines = ["[parameters]"]
    lines += [f"{json.dumps(name)} = {json.dumps(value)}" for name, value in pinned.items()]
    lines += ["", "[generation]", f"max-examples = {max_examples}", "database = 'none'"]
    for operation_id, ids in served.own.items():
        lines += ["", "[[operations]]", f"include-operation-id = {json.dumps(operation_id)}"]
        lines += ["[operations.parameters]"]
        lines += [f"{json.dumps('path.' + k)} = {json.dumps(v)}" for k, v in ids.items()]
    path = served.cwd / "schemathesis.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def schemathesis(served: Served, location: str, *extra: str, max_examples: int = 8) -> str:
    REPORTS.mkdir(parents=True, exist_ok=True)
    command = [
        SCHEMATHESIS,
        "--config-file",
        str(config(served, max_examples)),
        "--no-color",
        "run",
        location,
        "--url",
        served.base,
        "--header",
        f"X-Api-Key: {served.key}",
        "--checks",
        CHECKS,
        "--seed",
        "1515",
        "--workers",
        "2",
        "--suppress-health-check",
        "all",
        "--warnings",
        "off",
        "--report",
        "ndjson",
        "--report-ndjson-path",
        str(REPORTS / "events.ndjson"),
        *extra,
    ]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "SCHEMATHESIS_TELEMETRY": "false", "NO_COLOR": "1"},
    )
    output = done.stdout + done.stderr
    (REPORTS / "last-run.txt").write_text(output)
    return f"exit {done.returncode}\n{output}"


def successes(events: Path) -> dict[str, int]:
    """``METHOD /path`` -> how many of schemathesis' requests to it got a 2xx answer."""
    found: dict[str, int] = {}
    for line in events.read_text().splitlines():
        scenario = json.loads(line).get("ScenarioFinished")
        if not scenario:
            continue
        recorder = scenario["recorder"]
        for case_id, case in recorder.get("cases", {}).items():
            answer = recorder.get("interactions", {}).get(case_id, {}).get("response")
            label = f"{case['value']['method']} {case['value']['path']}"
            ok = answer is not None and answer["status_code"] < 300
            found[label] = found.get(label, 0) + int(ok)
    return found


# Operations that cannot succeed in this run: embedding needs an allowed website (set by the
# portal, not the API), and Twilio's webhooks need Twilio's signature.
NEVER_SUCCEED_HERE = {
    "POST /api/merchant-accounts/{ref}/invoices/{invoice_number}/embed",
    "POST /webhooks/twilio/sms",
    "POST /webhooks/twilio/status",
    # Only the portal connects an accounting system (no API call does), so a sync is refused
    # and no run exists to read.
    "GET /api/merchant-accounts/{ref}/accounting-online/sync-runs/{run_id}",
    "POST /api/merchant-accounts/{ref}/accounting-online/sync-customers",
    "POST /api/merchant-accounts/{ref}/accounting-online/sync-now",
    # Signed by the vendor (Adyen's HMAC at an address its credentials hold; Intuit's
    # verifier token): a fuzzer cannot sign.
    "POST /webhooks/gateways/{gateway}/{token}",
    "POST /webhooks/intuit",
}

# The create operation whose recorded example made each id, and the field it is in.
MADE_BY = {
    "customer_id": ("ApiMerchantAccountsRefCustomersCreateCustomer", "customerId"),
    "payment_method_id": (
        "ApiMerchantAccountsRefCustomersCustomerIdPaymentMethodsGatewaySavePaymentMethod",
        "paymentMethodId",
    ),
    "tax_rate_id": ("ApiMerchantAccountsRefTaxRatesCreateTaxRate", "taxRateId"),
    "category_id": ("ApiMerchantAccountsRefProductCategoriesCreateCategory", "categoryId"),
    "product_id": ("ApiMerchantAccountsRefProductsCreateProduct", "productId"),
    "location_id": ("ApiMerchantAccountsRefLocationsCreateLocation", "locationId"),
}


def with_live_ids(text: str, served: Served) -> str:
    """The document's examples name objects of the recording run; name the live ones, so the
    examples phase sends requests that can succeed here."""
    recorded = recorded_examples()
    for name, (operation_id, field) in MADE_BY.items():
        old = recorded[operation_id]["response"][field]
        text = text.replace(json.dumps(old), json.dumps(served.ids[name]))
    return text


def test_every_operation_keeps_its_documented_promises(served: Served) -> None:
    document = served.cwd / "openapi.json"
    text = with_live_ids(httpx.get(served.base + "/schema/openapi.json").text, served)
    document.write_text(text)
    output = schemathesis(served, str(document))
    print(output)  # the summary: operations, phases, checks
    assert output.startswith("exit 0"), output[-6000:]
    # The operations did real work: most got at least one success, not only refusals.
    operations = [
        f"{method.upper()} {path}"
        for path, item in json.loads(text)["paths"].items()
        for method in item
    ]
    done = successes(REPORTS / "events.ndjson")
    idle = sorted(op for op in operations if not done.get(op))
    print(f"{len(operations) - len(idle)} of {len(operations)} operations succeeded at least once")
    print("never a 2xx:", *idle, sep="\n  ")
    unexpected = set(idle) - NEVER_SUCCEED_HERE
    assert len(unexpected) <= 3, unexpected  # a little room for the fuzzer's luck


def test_a_broken_document_is_caught(served: Served) -> None:
    """A document that lies about one response (the merchant's name as a number) fails."""
    body = httpx.get(served.base + "/schema/openapi.json").json()
    merchant = body["components"]["schemas"]["MerchantOut"]
    merchant["properties"]["displayName"] = {"type": "integer"}
    broken = served.cwd / "broken.json"
    broken.write_text(json.dumps(body))
    output = schemathesis(
        served,
        str(broken),
        "--include-operation-id",
        "ApiMerchantAccountsRefGetMerchant",
        "--phases",
        "examples,fuzzing",
        max_examples=3,
    )
    assert not output.startswith("exit 0"), output
    assert "Response violates schema" in output, output
