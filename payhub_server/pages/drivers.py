"""Which hosted-fields driver a page loads for a gateway, and the vendor hosts its CSP allows.

Each real gateway's driver is a small script of ours (``static/fields/<gateway>.js``) with the
simulator's interface, ``PayHubFields[gateway].createFields(el, {type, config})`` returning
``{tokenize(): Promise<{token, type}>}``. The driver loads the vendor's official SDK from the
vendor's own CDN, so the card number is typed only into the vendor's iframes; the token it
returns is exactly what that gateway's adapter charges (see docs/pay-page.md).

The Content-Security-Policy of a page opens exactly the hosts of the gateway on that page, in
the merchant's mode (sandbox hosts for sandbox credentials), and nothing for any other gateway.
"""

from __future__ import annotations

from typing import Any

import attrs

from payhub.domain.gateway_public import public_field_names


@attrs.frozen
class VendorHosts:
    """Origins a page's CSP adds to ``script-src``, ``frame-src`` and ``connect-src``."""

    script: tuple[str, ...] = ()
    frame: tuple[str, ...] = ()
    connect: tuple[str, ...] = ()


@attrs.frozen
class Driver:
    gateway: str
    sdk_sandbox: tuple[str, ...]  # the vendor's script URLs, loaded in this order
    sdk_live: tuple[str, ...]
    hosts_sandbox: VendorHosts
    hosts_live: VendorHosts
    card: bool = True
    bank: bool = False

    @property
    def module(self) -> str:
        return f"/static/fields/{self.gateway}.js"

    @property
    def required(self) -> tuple[str, ...]:
        return public_field_names(self.gateway)

    def hosts(self, sandbox: bool) -> VendorHosts:
        return self.hosts_sandbox if sandbox else self.hosts_live

    def ready(self, public: dict[str, str]) -> bool:
        """Every public value the SDK needs is set."""
        return all(public.get(name) for name in self.required)

    def config(self, public: dict[str, str], sandbox: bool) -> dict[str, Any]:
        """What the driver reads: the SDK's URLs and the public values, nothing secret."""
        return {
            "sdk": list(self.sdk_sandbox if sandbox else self.sdk_live),
            "sandbox": sandbox,
            **{name: public[name] for name in self.required if name in public},
        }


_BT = "https://js.braintreegateway.com/web/3.136.0/js"
_CKO = "https://cdn.checkout.com/js/framesv2.min.js"
_STRIPE = VendorHosts(
    script=("https://js.stripe.com", "https://*.js.stripe.com"),
    frame=("https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"),
    connect=("https://api.stripe.com",),
)

DRIVERS: dict[str, Driver] = {
    d.gateway: d
    for d in (
        # https://docs.stripe.com/security/guide#content-security-policy
        Driver(
            "stripe",
            ("https://js.stripe.com/v3/",),
            ("https://js.stripe.com/v3/",),
            _STRIPE,
            _STRIPE,
        ),
        # https://developer.squareup.com/docs/web-payments/content-security-policy
        Driver(
            "square",
            ("https://sandbox.web.squarecdn.com/v1/square.js",),
            ("https://web.squarecdn.com/v1/square.js",),
            VendorHosts(
                script=("https://sandbox.web.squarecdn.com", "https://js.squareupsandbox.com"),
                frame=("https://sandbox.web.squarecdn.com",),
                connect=(
                    "https://pci-connect.squareupsandbox.com",
                    "https://sandbox.web.squarecdn.com",
                ),
            ),
            VendorHosts(
                script=("https://web.squarecdn.com", "https://js.squareup.com"),
                frame=("https://web.squarecdn.com",),
                connect=("https://pci-connect.squareup.com", "https://web.squarecdn.com"),
            ),
        ),
        # https://docs.nmi.com/docs/quick-start-tutorial (Collect.js, inline iframes); a
        # sandbox account's key works only on sandbox.nmi.com, as the adapter's API calls do.
        Driver(
            "nmi",
            ("https://sandbox.nmi.com/token/Collect.js",),
            ("https://secure.nmi.com/token/Collect.js",),
            VendorHosts(
                script=("https://sandbox.nmi.com",),
                frame=("https://sandbox.nmi.com",),
                connect=("https://sandbox.nmi.com",),
            ),
            VendorHosts(
                script=("https://secure.nmi.com",),
                frame=("https://secure.nmi.com",),
                connect=("https://secure.nmi.com",),
            ),
        ),
        # https://developer.authorize.net/api/reference/features/acceptjs.html: AcceptUI,
        # the hosted lightbox (card data typed in Authorize.Net's frame, SAQ A).
        Driver(
            "authorize-net",
            ("https://jstest.authorize.net/v3/AcceptUI.js",),
            ("https://js.authorize.net/v3/AcceptUI.js",),
            VendorHosts(
                script=("https://jstest.authorize.net",),
                frame=("https://jstest.authorize.net",),
                connect=("https://apitest.authorize.net",),
            ),
            VendorHosts(
                script=("https://js.authorize.net",),
                frame=("https://js.authorize.net",),
                connect=("https://api2.authorize.net",),
            ),
        ),
        # https://braintree.github.io/braintree-web/current (client + hostedFields modules)
        Driver(
            "braintree",
            (f"{_BT}/client.min.js", f"{_BT}/hosted-fields.min.js"),
            (f"{_BT}/client.min.js", f"{_BT}/hosted-fields.min.js"),
            VendorHosts(
                script=("https://js.braintreegateway.com", "https://assets.braintreegateway.com"),
                frame=("https://assets.braintreegateway.com",),
                connect=(
                    "https://api.sandbox.braintreegateway.com",
                    "https://client-analytics.sandbox.braintreegateway.com",
                    "https://payments.sandbox.braintree-api.com",
                ),
            ),
            VendorHosts(
                script=("https://js.braintreegateway.com", "https://assets.braintreegateway.com"),
                frame=("https://assets.braintreegateway.com",),
                connect=(
                    "https://api.braintreegateway.com",
                    "https://client-analytics.braintreegateway.com",
                    "https://payments.braintree-api.com",
                ),
            ),
        ),
        # https://www.checkout.com/docs/payments/accept-payments/accept-a-payment-using-frames:
        # one CDN script for both modes (Frames picks the API from the key's pk_sbox_ prefix);
        # the card frame is on cdn.checkout.com and the token comes from the API's /tokens.
        Driver(
            "checkout-com",
            (_CKO,),
            (_CKO,),
            VendorHosts(
                script=("https://cdn.checkout.com",),
                frame=("https://cdn.checkout.com",),
                connect=("https://api.sandbox.checkout.com",),
            ),
            VendorHosts(
                script=("https://cdn.checkout.com",),
                frame=("https://cdn.checkout.com",),
                connect=("https://api.checkout.com",),
            ),
        ),
        # https://docs.clover.com/docs/using-the-clover-hosted-iframe: the iframe SDK and its
        # element frames on checkout(.sandbox.dev).clover.com; cards become clv_ tokens at
        # token(-sandbox.dev).clover.com.
        Driver(
            "clover",
            ("https://checkout.sandbox.dev.clover.com/sdk.js",),
            ("https://checkout.clover.com/sdk.js",),
            VendorHosts(
                script=("https://checkout.sandbox.dev.clover.com",),
                frame=("https://checkout.sandbox.dev.clover.com",),
                connect=("https://token-sandbox.dev.clover.com",),
            ),
            VendorHosts(
                script=("https://checkout.clover.com",),
                frame=("https://checkout.clover.com",),
                connect=("https://token.clover.com",),
            ),
        ),
        # https://help.usaepay.info/developer/javascript-library/ (Pay.js v2): the card entry
        # frame and the payment-key request are on the script's own host.
        Driver(
            "usaepay",
            ("https://sandbox.usaepay.com/js/v2/pay.js",),
            ("https://www.usaepay.com/js/v2/pay.js",),
            VendorHosts(
                script=("https://sandbox.usaepay.com",),
                frame=("https://sandbox.usaepay.com",),
                connect=("https://sandbox.usaepay.com",),
            ),
            VendorHosts(
                script=("https://www.usaepay.com",),
                frame=("https://www.usaepay.com",),
                connect=("https://www.usaepay.com", "https://usaepay.com"),
            ),
        ),
    )
}


@attrs.frozen
class Fields:
    """What a page needs to render one gateway's fields, or None when it cannot."""

    module: str
    hosts: VendorHosts
    config: dict[str, Any]
    card: bool
    bank: bool


SIMULATOR_FIELDS = Fields("/simulator/hosted-fields.js", VendorHosts(), {}, True, True)


def fields_for(gateway: str, sandbox: bool, public: dict[str, str]) -> Fields | None:
    """The driver for ``gateway`` when it has one and the merchant set its public values."""
    if gateway == "simulator":
        return SIMULATOR_FIELDS
    driver = DRIVERS.get(gateway)
    if driver is None or not driver.ready(public):
        return None
    return Fields(
        driver.module, driver.hosts(sandbox), driver.config(public, sandbox),
        driver.card, driver.bank,
    )  # fmt: skip
