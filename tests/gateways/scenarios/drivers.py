"""Every gateway's scenario driver (``tests/gateways/<gateway>/scenario.py``), by gateway name."""

from __future__ import annotations

from tests.gateways.adyen.scenario import Adyen
from tests.gateways.authorize_net.scenario import AuthorizeNet
from tests.gateways.braintree.scenario import Braintree
from tests.gateways.checkout_com.scenario import CheckoutCom
from tests.gateways.clover.scenario import Clover
from tests.gateways.cybersource.scenario import CyberSource
from tests.gateways.elavon.scenario import Elavon
from tests.gateways.fiserv.scenario import Fiserv
from tests.gateways.forte.scenario import Forte
from tests.gateways.global_payments.scenario import GlobalPayments
from tests.gateways.heartland.scenario import Heartland
from tests.gateways.helcim.scenario import Helcim
from tests.gateways.nmi.scenario import Nmi
from tests.gateways.nuvei.scenario import Nuvei
from tests.gateways.paypal.scenario import PayPal
from tests.gateways.paytrace.scenario import PayTrace
from tests.gateways.scenarios.base import Driver
from tests.gateways.square.scenario import Square
from tests.gateways.stax.scenario import Stax
from tests.gateways.stripe.scenario import Stripe
from tests.gateways.usaepay.scenario import UsaEpay
from tests.gateways.worldpay.scenario import Worldpay

DRIVERS: dict[str, type[Driver]] = {
    d.name: d
    for d in (
        Nmi,
        Fiserv,
        Heartland,
        Elavon,
        Clover,
        Helcim,
        Stax,
        PayTrace,
        Forte,
        UsaEpay,
        Nuvei,
        Stripe,
        Square,
        CheckoutCom,
        Braintree,
        PayPal,
        AuthorizeNet,
        Adyen,
        CyberSource,
        Worldpay,
        GlobalPayments,
    )
}
