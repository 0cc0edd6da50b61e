"""What every gateway adapter must be, checked across the registry at once.

Each adapter has its own tests against its fake; these hold the set together: every catalog
gateway has an adapter, each is registered under its own name from the module named after it,
speaks the ``Gateway`` port with the port's parameter names, and a gateway that has no
idempotency mechanism of its own can find a charge whose answer was lost (``FindsLostCharges``),
so a retried ``Unknown`` charge never charges twice.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import httpx
import pytest

from payhub.adapters.gateways.registry import default_gateways
from payhub.ports import FindsLostCharges, Gateway
from tests.gateways.catalog_rows import GATEWAYS, SIMULATOR

PORT_METHODS = ("charge", "capture", "refund", "void", "status", "save_payment_method")

# From the "idempotency towards the gateway" column of docs/gateways.md. Native: the gateway
# itself answers a repeated key with the first result (Helcim's key lapses after 5 minutes, so
# it also implements lookup). The others send payhub's key in an order/reference field at best
# and must find a lost charge by it.
NATIVE_IDEMPOTENCY = frozenset(
    {
        "simulator",
        "stripe",
        "square",
        "paypal",
        "adyen",
        "checkout-com",
        "global-payments",
        "fiserv",
        "clover",
        "helcim",
        "stax",
    }
)
FINDS_LOST_CHARGES = frozenset(
    {
        "braintree",  # ApiRequestKey is undocumented: duplicate checking + order id lookup
        "authorize-net",
        "nmi",
        "cybersource",
        "worldpay",
        "heartland",
        "elavon",
        "paytrace",
        "forte",
        "usaepay",
        "nuvei",  # refuses a repeated clientRequestId instead of answering with the first
        "helcim",
    }
)


def _no_network(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request expected, got {request.method} {request.url.host}")


@pytest.fixture(scope="module")
def registry() -> Iterator[dict[str, Gateway]]:
    with httpx.Client(transport=httpx.MockTransport(_no_network)) as client:
        yield default_gateways(client)


def _registered() -> list[str]:
    with httpx.Client(transport=httpx.MockTransport(_no_network)) as client:
        return sorted(default_gateways(client))


@pytest.mark.parametrize("name", [g.name for g in GATEWAYS])
def test_every_catalog_gateway_has_an_adapter(name: str, registry: dict[str, Gateway]) -> None:
    assert name in registry, f"{name} is in the catalog but has no adapter in registry.py"


@pytest.mark.parametrize("key", _registered())
def test_each_adapter_is_registered_under_its_own_catalog_name(
    key: str, registry: dict[str, Gateway]
) -> None:
    adapter = registry[key]
    assert adapter.name == key
    assert key in {g.name for g in (*GATEWAYS, SIMULATOR)}
    module = "payhub.adapters.gateways." + key.replace("-", "_") + ".adapter"
    assert type(adapter).__module__ == module


@pytest.mark.parametrize("key", _registered())
def test_each_adapter_speaks_the_gateway_port_with_its_parameter_names(
    key: str, registry: dict[str, Gateway]
) -> None:
    adapter_class = type(registry[key])
    for method in PORT_METHODS:
        expected = inspect.signature(getattr(Gateway, method))
        implemented = getattr(adapter_class, method, None)
        assert callable(implemented), f"{key} lacks {method}"
        got = inspect.signature(implemented)
        assert list(got.parameters) == list(expected.parameters), f"{key}.{method}"
        kinds = [p.kind for p in got.parameters.values()]
        assert kinds == [p.kind for p in expected.parameters.values()], f"{key}.{method}"


@pytest.mark.parametrize("key", _registered())
def test_every_adapter_is_classified_for_idempotency(key: str) -> None:
    assert key in NATIVE_IDEMPOTENCY | FINDS_LOST_CHARGES, (
        f"{key}: add it to NATIVE_IDEMPOTENCY or FINDS_LOST_CHARGES (see docs/gateways.md)"
    )


@pytest.mark.parametrize("key", sorted(FINDS_LOST_CHARGES))
def test_gateways_without_native_idempotency_find_lost_charges(
    key: str, registry: dict[str, Gateway]
) -> None:
    adapter = registry[key]
    assert isinstance(adapter, FindsLostCharges)
    expected = inspect.signature(FindsLostCharges.lookup)
    assert list(inspect.signature(type(adapter).lookup).parameters) == list(expected.parameters)


def test_the_registry_holds_nothing_but_the_catalog(registry: dict[str, Gateway]) -> None:
    assert set(registry) == {g.name for g in GATEWAYS} | {SIMULATOR.name}
