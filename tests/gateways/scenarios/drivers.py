"""One scenario driver per gateway: how to make its fake approve, decline and save."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

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
from payhub.adapters.gateways.nmi import NmiGateway
from payhub.adapters.gateways.nuvei import NuveiGateway
from payhub.adapters.gateways.paypal import PayPalGateway
from payhub.adapters.gateways.paytrace import PayTraceGateway
from payhub.adapters.gateways.square import SquareGateway
from payhub.adapters.gateways.stax import StaxGateway
from payhub.adapters.gateways.stripe import StripeGateway
from payhub.adapters.gateways.usaepay import UsaEpayGateway
from payhub.adapters.gateways.worldpay import WorldpayGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.fakes import (
    adyen,
    authorize_net,
    braintree,
    checkout_com,
    clover,
    cybersource,
    elavon,
    fiserv,
    forte,
    global_payments,
    heartland,
    helcim,
    nmi,
    nuvei,
    paypal,
    paytrace,
    square,
    stax,
    stripe,
    usaepay,
    worldpay,
)
from tests.gateways.scenarios.base import Driver

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


class Nmi(Driver):
    name = "nmi"
    decline_tokens = {
        "generic_decline": "tok_decline",
        "insufficient_funds": "tok_insufficient",
        "expired_card": "tok_expired",
        "incorrect_cvc": "tok_cvv",
        "fraudulent": "tok_stolen",
        "processing_error": "tok_processor_error",
    }

    def make_fake(self) -> Any:
        return nmi.FakeNmi()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return NmiGateway(client)

    creds = GatewayCredentials(api_secret=nmi.SECURITY_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="not-the-security-key", sandbox=True)

    def card_token(self) -> str:
        return "tok_visa"

    def save_token(self) -> str:
        return "tok_mastercard"


class Fiserv(Driver):
    name = "fiserv"
    decline_tokens = {
        "generic_decline": "session-decline-05",
        "insufficient_funds": "session-decline-51",
        "expired_card": "session-decline-54",
        "incorrect_cvc": "session-decline-N7",
        "fraudulent": "session-decline-43",
        "processing_error": "session-decline-96",
    }
    _fields = {
        "apiKey": fiserv.API_KEY,
        "merchantId": fiserv.MERCHANT_ID,
        "terminalId": fiserv.TERMINAL_ID,
    }
    creds = GatewayCredentials(fiserv.API_SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("not-the-api-secret", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return fiserv.FakeFiserv()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return FiservGateway(client, now=lambda: NOW)

    def card_token(self) -> str:
        return str(self.fake.session())

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t.get("type") == "CHARGE")


class Heartland(Driver):
    name = "heartland"
    decline_tokens = {
        "generic_decline": "supt_decline",
        "insufficient_funds": "supt_insufficient",
        "expired_card": "supt_expired",
        "incorrect_cvc": "supt_cvv",
        "fraudulent": "supt_stolen",
        # issuer 91 is reversed and reported as GatewayUnavailable (retry-safe), not a decline
    }
    creds = GatewayCredentials(api_secret=heartland.CERT_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="skapi_cert_notTheKey", sandbox=True)

    def make_fake(self) -> Any:
        return heartland.FakeHeartland()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return HeartlandGateway(client)

    def card_token(self) -> str:
        return "supt_visa"

    def save_token(self) -> str:
        return "supt_mastercard"


class Elavon(Driver):
    name = "elavon"
    decline_tokens = {
        "generic_decline": "ck_decline",
        "insufficient_funds": "ck_insufficient",
        "expired_card": "ck_expired",
        "incorrect_cvc": "ck_cvv",
        "fraudulent": "ck_stolen",
    }
    _fields = {"merchantId": elavon.MERCHANT_ID, "userId": elavon.USER_ID}
    creds = GatewayCredentials(api_secret=elavon.PIN, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-pin", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return elavon.FakeElavon()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return ElavonGateway(client)

    def card_token(self) -> str:
        return "ck_visa"

    def save_token(self) -> str:
        return "ck_mastercard"


class Clover(Driver):
    name = "clover"
    _numbers = {
        "generic_decline": "4005571702222222",
        "insufficient_funds": "4000000000009995",
        "expired_card": "4000000000000069",
        "incorrect_cvc": "4000000000000127",
        "fraudulent": "4100000000000019",
        "processing_error": "4000000000000119",
    }
    creds = GatewayCredentials(api_secret=clover.SANDBOX_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="11111111-2222-4333-8444-555555555555", sandbox=True)

    def make_fake(self) -> Any:
        return clover.FakeClover()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return CloverGateway(client)

    def card_token(self) -> str:
        return str(self.fake.tokenize())

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.tokenize(self._numbers[family]))

    def charges_made(self) -> int:
        return len(self.fake.charges)


class Helcim(Driver):
    name = "helcim"
    _cvv = {
        "generic_decline": "209",
        "insufficient_funds": "225",
        "expired_card": "210",
        "incorrect_cvc": "200",
        "fraudulent": "201",
        "processing_error": "207",
    }
    creds = GatewayCredentials(api_secret=helcim.API_TOKEN, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="notTheRightApiToken1234567", sandbox=True)

    def __init__(self) -> None:
        super().__init__()
        self._names = (f"Card Holder {n}" for n in itertools.count(1))

    def make_fake(self) -> Any:
        return helcim.FakeHelcim()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return HelcimGateway(client)

    def card_token(self) -> str:
        # a fresh holder name each time: Helcim declines the same card, name and amount twice
        return str(self.fake.tokenize(name=next(self._names)))

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.tokenize(cvv=self._cvv[family], name=next(self._names)))


class Stax(Driver):
    name = "stax"
    _numbers = {
        "generic_decline": "4012888888881881",
        "insufficient_funds": "4000000000009995",
        "expired_card": "4000000000000069",
        "incorrect_cvc": "4000000000000127",
        "fraudulent": "4000000000009979",
        "processing_error": "4000000000000119",
    }
    creds = GatewayCredentials(api_secret=stax.API_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="not-the-stax-key-123456", sandbox=True)

    def make_fake(self) -> Any:
        return stax.FakeStax()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return StaxGateway(client)

    def card_token(self) -> str:
        return str(self.fake.tokenize())

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.tokenize(self._numbers[family]))

    def settle(self) -> None:
        self.fake.settle()

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t.get("type") == "charge")


class PayTrace(Driver):
    name = "paytrace"
    _fields = {"username": paytrace.USERNAME, "integratorId": paytrace.INTEGRATOR_ID}
    creds = GatewayCredentials(api_secret=paytrace.PASSWORD, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-password", sandbox=True, fields=_fields)
    decline_tokens = {
        "generic_decline": "hpf_decline|enc_key_abc==",
        "insufficient_funds": "hpf_insufficient|enc_key_abc==",
        "expired_card": "hpf_expired|enc_key_abc==",
        "incorrect_cvc": "hpf_cvv|enc_key_abc==",
        "fraudulent": "hpf_stolen|enc_key_abc==",
        "processing_error": "hpf_processor|enc_key_abc==",
    }

    def make_fake(self) -> Any:
        return paytrace.FakePayTrace()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return PayTraceGateway(client, today=lambda: NOW)

    def card_token(self) -> str:
        return "hpf_visa|enc_key_abc=="

    def save_token(self) -> str:
        return "hpf_mastercard|enc_key_abc=="

    def breaks(self, request: httpx.Request) -> bool:
        return request.url.path != "/oauth/token"  # the access token is not the operation


class Forte(Driver):
    name = "forte"
    decline_tokens = {
        "generic_decline": "ott_decline",
        "insufficient_funds": "ott_insufficient",
        "expired_card": "ott_expired",
        "fraudulent": "ott_stolen",
    }
    _fields = {"accessId": forte.ACCESS_ID, "organizationId": forte.ORG, "locationId": forte.LOC}
    creds = GatewayCredentials(api_secret=forte.SECURE_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-secure-key", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return forte.FakeForte()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return ForteGateway(client)

    def card_token(self) -> str:
        return "ott_visa"

    def save_token(self) -> str:
        return "ott_mastercard"


class UsaEpay(Driver):
    name = "usaepay"
    decline_tokens = {
        "generic_decline": "pk_decline",
        "insufficient_funds": "pk_insufficient",
        "expired_card": "pk_expired",
        "incorrect_cvc": "pk_cvv",
        "fraudulent": "pk_stolen",
    }
    creds = GatewayCredentials(
        api_secret=usaepay.API_KEY, sandbox=True, fields={"pin": usaepay.PIN}
    )
    bad_creds = GatewayCredentials(
        api_secret="not-the-api-key-0000", sandbox=True, fields={"pin": usaepay.PIN}
    )

    def make_fake(self) -> Any:
        return usaepay.FakeUsaEpay()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return UsaEpayGateway(client)

    def card_token(self) -> str:
        return "pk_visa"

    def save_token(self) -> str:
        return "pk_mastercard"


class Nuvei(Driver):
    name = "nuvei"
    _cards = {
        "generic_decline": "decline",
        "insufficient_funds": "insufficient",
        "expired_card": "expired",
        "incorrect_cvc": "cvv",
        "fraudulent": "stolen",
    }
    _fields = {"merchantId": nuvei.MERCHANT_ID, "merchantSiteId": nuvei.MERCHANT_SITE_ID}
    creds = GatewayCredentials(api_secret=nuvei.SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-secret-key", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return nuvei.FakeNuvei()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return NuveiGateway(client)

    def card_token(self) -> str:
        return str(self.fake.fields_token("visa"))

    def save_token(self) -> str:
        return str(self.fake.fields_token("mastercard"))

    def decline_token(self, family: str) -> str | None:
        card = self._cards.get(family)
        return str(self.fake.fields_token(card)) if card else None


class Stripe(Driver):
    name = "stripe"
    decline_tokens = {
        "generic_decline": "pm_card_visa_chargeDeclined",
        "insufficient_funds": "pm_card_visa_chargeDeclinedInsufficientFunds",
        "expired_card": "pm_card_chargeDeclinedExpiredCard",
        "incorrect_cvc": "pm_card_chargeDeclinedIncorrectCvc",
        "fraudulent": "pm_card_chargeDeclinedFraudulent",
        "processing_error": "pm_card_chargeDeclinedProcessingError",
    }
    creds = GatewayCredentials(api_secret=stripe.TEST_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="sk_test_not_the_key_0000", sandbox=True)

    def make_fake(self) -> Any:
        return stripe.FakeStripe()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return StripeGateway(client)

    def card_token(self) -> str:
        return str(self.fake.add_card())

    def save_token(self) -> str:
        return str(self.fake.add_card("mastercard", "4444"))

    def charges_made(self) -> int:
        return len(self.fake.payment_intents)


class Square(Driver):
    name = "square"
    decline_tokens = {
        "generic_decline": "cnon:card-nonce-declined",
        "insufficient_funds": "cnon:card-nonce-insufficient-funds",
        "expired_card": "cnon:card-nonce-rejected-expiration",
        "incorrect_cvc": "cnon:card-nonce-rejected-cvv",
    }
    _fields = {"locationId": square.LOCATION_ID}
    creds = GatewayCredentials(square.ACCESS_TOKEN, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("EAAAEnotTheAccessToken000000000", sandbox=True, fields=_fields)
    _pending_refund = (
        "Square answers RefundPayment PENDING and finishes it later (test_square.py covers"
        " PENDING -> COMPLETED); the scenario expects a finished refund"
    )
    skips = {
        "test_authorize_then_capture_in_full_then_refund": _pending_refund,
        "test_a_sale_is_refunded_in_part_then_in_the_rest": _pending_refund,
    }

    def make_fake(self) -> Any:
        return square.FakeSquare()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return SquareGateway(client)

    def card_token(self) -> str:
        return str(self.fake.card_nonce())

    def charges_made(self) -> int:
        return len(self.fake.payments)


class CheckoutCom(Driver):
    name = "checkout-com"
    creds = GatewayCredentials(
        checkout_com.SANDBOX_KEY, sandbox=True, fields={"processingChannelId": "pc_1"}
    )
    bad_creds = GatewayCredentials(
        "sk_sbox_not_the_key_9876", sandbox=True, fields={"processingChannelId": "pc_1"}
    )
    _async = (
        "Checkout.com answers a capture:true payment Authorized and captures, refunds and voids"
        " 202 (PENDING) until it finishes them (test_checkout_com.py plays the settling); the"
        " scenario expects a finished operation at once"
    )
    skips = {
        "test_each_decline_family_is_declined_with_its_code": (
            "the sandbox declines by amount (fake DECLINES), not by card, and the scenario"
            " charges 10.00; test_checkout_com.py::test_declines covers every family"
        ),
        "test_an_approved_sale_is_captured_and_reads_back": _async,
        "test_authorize_then_capture_in_full_then_refund": _async,
        "test_a_partial_capture_takes_only_that_amount": _async,
        "test_a_sale_is_refunded_in_part_then_in_the_rest": _async,
        "test_a_void_releases_an_authorization": _async,
        "test_a_vaulted_card_is_charged_again": _async,
        "test_a_charge_whose_answer_was_lost_is_found_and_never_made_twice": _async,
    }

    def make_fake(self) -> Any:
        return checkout_com.FakeCheckoutCom()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return CheckoutComGateway(client)

    def card_token(self) -> str:
        return str(self.fake.token())

    def settle(self) -> None:
        self.fake.settle()

    def charges_made(self) -> int:
        return len(self.fake.payments)


class Braintree(Driver):
    name = "braintree"
    # the other families are declined by amount (2001, 2004, 2010, ...), not by nonce, and the
    # scenario charges 10.00; test_braintree.py covers them
    decline_tokens = {
        "generic_decline": "fake-processor-declined-visa-nonce",
        "fraudulent": "fake-gateway-rejected-fraud-nonce",
    }
    _fields = {"publicKey": braintree.PUBLIC_KEY, "merchantId": braintree.MERCHANT_ID}
    creds = GatewayCredentials(braintree.PRIVATE_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("not_the_private_key_0000", sandbox=True, fields=_fields)
    skips = {
        "test_a_malformed_answer_is_a_plain_gateway_error_that_never_echoes_it": (
            "the adapter treats an unreadable HTTP 200 as outcome unknown (GatewayTimeout, so a"
            " lookup settles it), on purpose: a mutation may have gone through"
        ),
    }

    def make_fake(self) -> Any:
        return braintree.FakeBraintree()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return BraintreeGateway(client)

    def card_token(self) -> str:
        return "fake-valid-visa-nonce"

    def save_token(self) -> str:
        return "fake-valid-mastercard-nonce"

    def breaks(self, request: httpx.Request) -> bool:
        return b"MerchantAccounts" not in request.content  # the currency's account, read first

    def settle(self) -> None:
        """Braintree refunds only settled sales (an unsettled one is voided)."""
        for ref, tx in self.fake.transactions.items():
            if tx["status"] in ("SUBMITTED_FOR_SETTLEMENT", "SETTLING"):
                self.fake.settle(ref)

    def charges_made(self) -> int:
        return len(self.fake.transactions)  # refunds are kept apart


class PayPal(Driver):
    name = "paypal"
    _names = {
        "generic_decline": "CCREJECT-REFUSED",
        "insufficient_funds": "CCREJECT-IF",
        "expired_card": "CCREJECT-EC",
        "incorrect_cvc": "CCREJECT-CVV_F",
        "fraudulent": "CCREJECT-SF",
    }
    _fields = {"clientId": paypal.CLIENT_ID}
    creds = GatewayCredentials(paypal.SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("EWrongClientSecret9876", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return paypal.FakePayPal()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return PayPalGateway(client)

    def card_token(self) -> str:
        # an order the pay page's Card Fields approved; payhub sets its amount and intent
        return str(self.fake.card_fields_order())

    def save_token(self) -> str:
        return str(self.fake.approved_setup_token())

    def decline_token(self, family: str) -> str | None:
        name = self._names.get(family)
        return str(self.fake.card_fields_order(name=name)) if name else None

    def breaks(self, request: httpx.Request) -> bool:
        # the access token and the order's PATCH come first; the capture or authorize is the charge
        return request.method == "POST" and request.url.path.endswith(("/capture", "/authorize"))

    def charges_made(self) -> int:
        return len(self.fake.captures) + len(self.fake.authorizations)


class AuthorizeNet(Driver):
    name = "authorize-net"
    _tokens = {
        "generic_decline": "tok_decline",
        "expired_card": "tok_expired",
        "incorrect_cvc": "tok_cvv",
        "fraudulent": "tok_fraud",
        "processing_error": "tok_processing",
    }
    _fields = {"apiLoginId": authorize_net.FAKE_LOGIN}
    creds = GatewayCredentials(authorize_net.FAKE_TRANSACTION_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("NotTheKey0000000", sandbox=True, fields=_fields)

    def __init__(self) -> None:
        super().__init__()
        self._n = itertools.count(1)

    def make_fake(self) -> Any:
        return authorize_net.FakeAuthorizeNet()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return AuthorizeNetGateway(client)

    # Accept.js tokens work once; any suffix makes a fresh one
    def card_token(self) -> str:
        return f"tok_visa_{next(self._n)}"

    def save_token(self) -> str:
        return f"tok_mastercard_{next(self._n)}"

    def decline_token(self, family: str) -> str | None:
        token = self._tokens.get(family)
        return f"{token}_{next(self._n)}" if token else None

    def settle(self) -> None:
        self.fake.settle()

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t.type != "refundTransaction")


class Adyen(Driver):
    name = "adyen"
    _holders = {  # the test card's holder name chooses the refusal
        "generic_decline": "DECLINED",
        "insufficient_funds": "NOT_ENOUGH_BALANCE",
        "expired_card": "EXPIRED",
        "incorrect_cvc": "CVC_DECLINED",
        "fraudulent": "FRAUD",
        "processing_error": "ACQUIRER_ERROR",
    }
    _fields = {"merchantAccount": adyen.MERCHANT}
    creds = GatewayCredentials(adyen.API_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("AQEwrongAdyenKey4321", sandbox=True, fields=_fields)
    _no_status = (
        "Adyen has no API to look a payment up (the adapter says so; webhooks carry outcomes),"
        " and the scenario reads the payment back"
    )
    _received = (
        "Adyen answers captures and refunds 201 'received' (PENDING) and reports the outcome by"
        " webhook; the scenario expects a finished operation"
    )
    _cancel = (
        "Adyen answers a cancel 201 'received' (PENDING) and has no API to read the payment"
        " back; the scenario expects VOIDED from both"
    )
    skips = {
        "test_an_approved_sale_is_captured_and_reads_back": _no_status,
        "test_a_void_releases_an_authorization": _cancel,
        "test_authorize_then_capture_in_full_then_refund": _received,
        "test_a_partial_capture_takes_only_that_amount": _received,
        "test_a_sale_is_refunded_in_part_then_in_the_rest": _received,
    }

    def make_fake(self) -> Any:
        return adyen.FakeAdyen()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return AdyenGateway(client)

    def card_token(self) -> str:
        return str(self.fake.encrypted_card())  # Web Components' encrypted fields

    def save_token(self) -> str:
        return str(self.fake.encrypted_card("5555444433331111"))

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.encrypted_card(holder=self._holders[family]))

    def charges_made(self) -> int:
        return len(self.fake.payments)


class CyberSource(Driver):
    name = "cybersource"
    _names = {
        "generic_decline": "declined",
        "insufficient_funds": "insufficient",
        "expired_card": "expired",
        "incorrect_cvc": "cvn",
        "fraudulent": "stolen",
        "processing_error": "issuer-down",
    }
    _fields = {"merchantId": cybersource.MERCHANT_ID, "keyId": cybersource.KEY_ID}
    creds = GatewayCredentials(cybersource.SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(
        "bm90LXRoZS1zaGFyZWQtc2VjcmV0LWF0LWFsbCE=", sandbox=True, fields=_fields
    )

    def make_fake(self) -> Any:
        return cybersource.FakeCyberSource()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return CyberSourceGateway(client, now=lambda: NOW)

    def card_token(self) -> str:
        return str(self.fake.transient_token())  # a Microform JWT, usable once

    def decline_token(self, family: str) -> str | None:
        return cybersource.token(self._names[family])

    def charges_made(self) -> int:
        return len(self.fake.payments())


class Worldpay(Driver):
    name = "worldpay"
    decline_tokens = {  # eProtect registration ids
        "generic_decline": "pp_decline",
        "insufficient_funds": "pp_insufficient",
        "expired_card": "pp_expired",
        "incorrect_cvc": "pp_cvv",
        "fraudulent": "pp_stolen",
        "processing_error": "pp_issuer_down",
    }
    _fields = {"user": worldpay.USER, "merchantId": worldpay.MERCHANT_ID}
    creds = GatewayCredentials(worldpay.PASSWORD, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("not-the-worldpay-password", sandbox=True, fields=_fields)
    skips = {
        "test_a_void_releases_an_authorization": (
            "adapter bug: WorldpayGateway.status queries only the authorization and its captures"
            " (origActionType A, D), never the authReversal, so a voided authorization still"
            " reads AUTHORIZED"
        ),
    }

    def make_fake(self) -> Any:
        return worldpay.FakeWorldpay()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return WorldpayGateway(client)

    def card_token(self) -> str:
        return "pp_visa"

    def save_token(self) -> str:
        return "pp_mastercard"

    def charges_made(self) -> int:
        return len(self.fake.of_kind("sale")) + len(self.fake.of_kind("authorization"))


class GlobalPayments(Driver):
    name = "global-payments"
    decline_tokens = {  # PMT_decline_<payment_method.result>
        "generic_decline": "PMT_decline_05",
        "insufficient_funds": "PMT_decline_51",
        "expired_card": "PMT_decline_54",
        "incorrect_cvc": "PMT_decline_N7",
        "fraudulent": "PMT_decline_43",
        "processing_error": "PMT_decline_91",
    }
    _fields = {"appId": global_payments.APP_ID}
    creds = GatewayCredentials(global_payments.APP_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("notTheAppKey", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return global_payments.FakeGlobalPayments()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return GlobalPaymentsGateway(client, now=lambda: NOW)

    def card_token(self) -> str:
        return str(self.fake.single_use_token())  # what globalpayments.js hands out

    def breaks(self, request: httpx.Request) -> bool:
        return request.url.path != "/ucp/accesstoken"  # the access token is not the operation

    def settle(self) -> None:
        self.fake.batch()

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t["type"] == "SALE")


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
