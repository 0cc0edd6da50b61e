"""CyberSource's pay-page driver: the vendor SDK ``fields.js`` loads, the hosts the page's CSP
opens (test hosts for sandbox credentials), and the capture context made server-side."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://developer.cybersource.com/docs/cybs/en-us/digital-accept-flex/developer/all/rest/
# digital-accept-flex/microform-integ-v2.html: the Microform v2 library, its number and
# security-code iframes and the transient-token request are on testflex.cybersource.com
# (test) and flex.cybersource.com (production); the capture context (made per view by the
# adapter, POST /microform/v2/sessions) binds them to the pages' origin.
_TEST = "https://testflex.cybersource.com"
_LIVE = "https://flex.cybersource.com"
_BUNDLE = "/microform/bundle/v2.0/flex-microform.min.js"

PAGE = PayPageDriver(
    sdk_sandbox=(_TEST + _BUNDLE,),
    sdk_live=(_LIVE + _BUNDLE,),
    hosts_sandbox=VendorHosts(script=(_TEST,), frame=(_TEST,), connect=(_TEST,)),
    hosts_live=VendorHosts(script=(_LIVE,), frame=(_LIVE,), connect=(_LIVE,)),
    session=("captureContext",),
)
