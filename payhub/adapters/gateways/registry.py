"""Which adapter speaks for which gateway of the catalog."""

from __future__ import annotations

import httpx

from payhub.adapters.gateways.adyen import AdyenGateway
from payhub.adapters.gateways.authorize_net import AuthorizeNetGateway
from payhub.adapters.gateways.braintree import BraintreeGateway
from payhub.adapters.gateways.checkout_com import CheckoutComGateway
from payhub.adapters.gateways.clover import CloverGateway
from payhub.adapters.gateways.cybersource import CyberSourceGateway
from payhub.adapters.gateways.elavon import ElavonGateway
from payhub.adapters.gateways.fiserv import FiservGateway
from payhub.adapters.gateways.forte import ForteGateway
from payhub.adapters.gateways.global_payments import GlobalPaymentsGateway
from payhub.adapters.gateways.heartland import HeartlandGateway
from payhub.adapters.gateways.helcim import HelcimGateway
from payhub.adapters.gateways.http import default_client
from payhub.adapters.gateways.nmi import NmiGateway
from payhub.adapters.gateways.nuvei import NuveiGateway
from payhub.adapters.gateways.paypal import PayPalGateway
from payhub.adapters.gateways.paytrace import PayTraceGateway
from payhub.adapters.gateways.simulator import SimulatorGateway
from payhub.adapters.gateways.square import SquareGateway
from payhub.adapters.gateways.stax import StaxGateway
from payhub.adapters.gateways.stripe import StripeGateway
from payhub.adapters.gateways.usaepay import UsaEpayGateway
from payhub.adapters.gateways.worldpay import WorldpayGateway
from payhub.ports import Gateway


def default_gateways(client: httpx.Client | None = None) -> dict[str, Gateway]:
    """Every gateway payhub has an adapter for, sharing one HTTP client (connection pool).

    That is all 21 catalog gateways plus the simulator (tests/gateways/test_all_adapters.py
    keeps it so); a gateway missing here would answer payment calls with 503.
    """
    http = client or default_client()
    adapters: list[Gateway] = [
        SimulatorGateway(),
        StripeGateway(http),
        SquareGateway(http),
        NmiGateway(http),
        AuthorizeNetGateway(http),
        BraintreeGateway(http),
        PayPalGateway(http),
        AdyenGateway(http),
        CheckoutComGateway(http),
        PayTraceGateway(http),
        ForteGateway(http),
        CloverGateway(http),
        HelcimGateway(http),
        StaxGateway(http),
        CyberSourceGateway(http),
        GlobalPaymentsGateway(http),
        FiservGateway(http),
        UsaEpayGateway(http),
        NuveiGateway(http),
        WorldpayGateway(http),
        HeartlandGateway(http),
        ElavonGateway(http),
    ]
    return {g.name: g for g in adapters}
