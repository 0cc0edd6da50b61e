"""The Twilio adapter against a fake of Twilio's Messages API (``httpx.MockTransport``),
written from Twilio's public reference: the Message resource (create, list with ``To``,
``From``, ``DateSent>``, ``next_page_uri``), its JSON error body and the error dictionary
(21211 invalid To, 21610 unsubscribed recipient, 21614 not a mobile number, 20003
authentication, 20429 too many requests), and the webhook signature."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import pytest

from payhub.adapters.messaging import (
    OutboxMailer,
    OutboxSms,
    SmtpMailer,
    TwilioSms,
    mailer_from_env,
    settings_from_env,
    sms_from_env,
)
from payhub.adapters.messaging.signature import twilio_signature, valid_twilio_signature
from payhub.domain.messaging import OutgoingSms, SendFailed

SID = "AC" + "1" * 32
TOKEN = "twilio-auth-token"
FROM = "+15005550006"
BASE = f"https://api.twilio.com/2010-04-01/Accounts/{SID}/Messages.json"
AT = datetime(2025, 3, 14, 16, 0, tzinfo=UTC)


class FakeTwilio:
    """Twilio's Messages list resource: create and list, with its auth and error shapes."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.requests: list[httpx.Request] = []
        self.errors: list[tuple[int, int, str]] = []
        self.page_size = 50
        self.raise_exc: Exception | None = None

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.raise_exc is not None:
            raise self.raise_exc
        expected = "Basic " + base64.b64encode(f"{SID}:{TOKEN}".encode()).decode()
        if request.headers.get("authorization") != expected:
            return self.error(401, 20003, "Authenticate")
        if self.errors:
            return self.error(*self.errors.pop(0))
        if request.method == "POST" and request.url.path.endswith("/Messages.json"):
            return self.create(dict(parse_qsl(request.content.decode())))
        if request.method == "GET" and request.url.path.endswith("/Messages.json"):
            return self.list(request)
        return self.error(404, 20404, "The requested resource was not found")

    @staticmethod
    def error(status: int, code: int, message: str) -> httpx.Response:
        return httpx.Response(
            status,
            json={
                "code": code,
                "message": message,
                "more_info": f"https://www.twilio.com/docs/errors/{code}",
                "status": status,
            },
        )

    def create(self, form: dict[str, str]) -> httpx.Response:
        if "To" not in form or not ("From" in form or "MessagingServiceSid" in form):
            return self.error(400, 21604, "A 'To' phone number is required.")
        if not form["To"].startswith("+1"):
            return self.error(400, 21211, f"The 'To' number {form['To']} is not valid.")
        sid = f"SM{len(self.messages):032x}"
        message = {
            "sid": sid,
            "account_sid": SID,
            "to": form["To"],
            "from": form.get("From"),
            "messaging_service_sid": form.get("MessagingServiceSid"),
            "body": form.get("Body", ""),
            "status": "queued",
            "direction": "outbound-api",
            "date_created": format_datetime(AT),
            "date_sent": None,
            "error_code": None,
            "num_segments": "1",
            "uri": f"/2010-04-01/Accounts/{SID}/Messages/{sid}.json",
        }
        self.messages.insert(0, message)  # the list is newest first
        return httpx.Response(201, json=message)

    def list(self, request: httpx.Request) -> httpx.Response:
        q = request.url.params
        rows = [
            m
            for m in self.messages
            if (not q.get("To") or m["to"] == q["To"])
            and (not q.get("From") or m["from"] == q["From"])
        ]
        page = int(q.get("Page", "0"))
        chunk = rows[page * self.page_size : (page + 1) * self.page_size]
        more = len(rows) > (page + 1) * self.page_size
        query = urlencode({"To": q.get("To", ""), "Page": page + 1, "PageSize": self.page_size})
        next_uri = f"/2010-04-01/Accounts/{SID}/Messages.json?{query}" if more else None
        return httpx.Response(
            200,
            json={
                "messages": chunk,
                "next_page_uri": next_uri,
                "page": page,
                "page_size": self.page_size,
            },
        )


@pytest.fixture
def fake() -> FakeTwilio:
    return FakeTwilio()


def adapter(fake: FakeTwilio, token: str = TOKEN, **kwargs: Any) -> TwilioSms:
    client = httpx.Client(transport=httpx.MockTransport(fake.handler))
    options: dict[str, Any] = {"from_number": FROM, **kwargs}
    return TwilioSms(SID, token, client=client, **options)


def sms(body: str = "Acme: invoice INV-1 is ready", to: str = "+14155552671") -> OutgoingSms:
    return OutgoingSms("msg_1", to, body)


def test_send_posts_the_form_with_basic_auth_and_returns_the_sid(fake: FakeTwilio) -> None:
    sid = adapter(fake).send(sms())
    assert sid == "SM" + "0" * 32
    (request,) = fake.requests
    assert request.method == "POST"
    assert str(request.url) == BASE
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert dict(parse_qsl(request.content.decode())) == {
        "To": "+14155552671",
        "From": FROM,
        "Body": "Acme: invoice INV-1 is ready",
    }


def test_messaging_service_instead_of_from(fake: FakeTwilio) -> None:
    adapter(fake, from_number=None, messaging_service_sid="MG" + "2" * 32).send(sms())
    form = dict(parse_qsl(fake.requests[0].content.decode()))
    assert form["MessagingServiceSid"] == "MG" + "2" * 32
    assert "From" not in form


@pytest.mark.parametrize(
    ("status", "code", "permanent", "unknown", "blocked"),
    [
        (400, 21211, True, False, False),
        (400, 21614, True, False, False),
        (400, 21610, True, False, True),
        (429, 20429, False, False, False),
        (500, 20500, False, True, False),
        (503, 20503, False, True, False),
    ],
)
def test_error_codes(
    fake: FakeTwilio, status: int, code: int, permanent: bool, unknown: bool, blocked: bool
) -> None:
    fake.errors.append((status, code, "the reason"))
    with pytest.raises(SendFailed) as caught:
        adapter(fake).send(sms())
    failure = caught.value
    assert (failure.permanent, failure.unknown, failure.blocked) == (permanent, unknown, blocked)
    assert failure.code == str(code)
    assert failure.detail == f"Twilio {status} (error {code}): the reason"


def test_wrong_credentials_are_retried_not_permanent(fake: FakeTwilio) -> None:
    with pytest.raises(SendFailed) as caught:
        adapter(fake, token="wrong").send(sms())
    assert caught.value.code == "20003"
    assert not caught.value.permanent
    assert TOKEN not in caught.value.detail


def test_connect_error_is_safe_to_retry_and_timeout_is_unknown(fake: FakeTwilio) -> None:
    fake.raise_exc = httpx.ConnectError("refused")
    with pytest.raises(SendFailed) as caught:
        adapter(fake).send(sms())
    assert not caught.value.unknown
    fake.raise_exc = httpx.ReadTimeout("slow")
    with pytest.raises(SendFailed) as caught:
        adapter(fake).send(sms())
    assert caught.value.unknown


def test_find_sent_matches_body_time_and_follows_pages(fake: FakeTwilio) -> None:
    twilio = adapter(fake)
    fake.page_size = 2
    mine = twilio.send(sms("the one"))
    for i in range(4):
        twilio.send(sms(f"other {i}"))
    twilio.send(sms("the one", to="+12125550199"))  # same body, another number
    found = twilio.find_sent(sms("the one"), AT)
    assert found == [mine]
    last = fake.requests[-1]
    assert last.url.params.get("Page") == "2"  # it followed next_page_uri to the end
    first_lookup = next(r for r in fake.requests if r.method == "GET")
    assert first_lookup.url.params["DateSent>"] == "2025-03-14"
    assert first_lookup.url.params["To"] == "+14155552671"
    assert first_lookup.url.params["From"] == FROM


def test_find_sent_ignores_older_messages(fake: FakeTwilio) -> None:
    twilio = adapter(fake)
    twilio.send(sms())
    assert twilio.find_sent(sms(), datetime(2025, 3, 14, 17, 0, tzinfo=UTC)) == []


def test_httpx_request_logs_hide_the_recipient(
    fake: FakeTwilio, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx logs every request URL at INFO; the lookup's URL names the recipient."""
    twilio = adapter(fake)
    with caplog.at_level(logging.INFO, logger="httpx"):
        twilio.send(sms())
        twilio.find_sent(sms(), AT)
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name == "httpx")
    assert "Messages.json?To=[masked]" in logged
    assert "4155552671" not in logged
    assert TOKEN not in logged


def test_token_is_not_in_repr(fake: FakeTwilio) -> None:
    assert TOKEN not in repr(adapter(fake))


# --- signatures -------------------------------------------------------------------------------


def test_signature_matches_twilios_published_example() -> None:
    """The example in Twilio's published signature-validation snippets
    (TwilioDevEd/api-snippets, security/signature_validation)."""
    url = "https://mycompany.com/myapp.php?foo=1&bar=2"
    params = [
        ("CallSid", "CA1234567890ABCDE"),
        ("Caller", "+14158675310"),
        ("Digits", "1234"),
        ("From", "+14158675310"),
        ("To", "+18005551212"),
    ]
    assert twilio_signature(url, params, "12345") == "GvWf1cFY/Q7PnoempGyD5oXAezc="


# The vectors of Twilio's own validator tests (twilio-python,
# tests/unit/test_request_validator.py): token "12345", this URL and these parameters.
VECTOR_URL = "https://mycompany.com/myapp.php?foo=1&bar=2"
VECTOR_PARAMS = [
    ("CallSid", "CA1234567890ABCDE"),
    ("Digits", "1234"),
    ("From", "+14158675309"),
    ("To", "+18005551212"),
    ("Caller", "+14158675309"),
]


def test_signature_matches_twilios_validator_vectors() -> None:
    assert twilio_signature(VECTOR_URL, VECTOR_PARAMS, "12345") == "RSOYDt4T1cUTdK1PDd93/VVr8B8="
    repeated = [("Sid", "CA123"), ("SidAccount", "AC123"), ("Digits", "5678"), ("Digits", "1234")]
    assert twilio_signature(VECTOR_URL, repeated, "12345") == "IK+Dwps556ElfBT0I3Rgjkr1wJU="


def test_a_repeated_value_is_signed_twice_as_twilio_does() -> None:
    once = twilio_signature("https://x.test/h", [("a", "1")], "tok")
    twice = twilio_signature("https://x.test/h", [("a", "1"), ("a", "1")], "tok")
    assert twice != once
    assert (
        twice
        == base64.b64encode(
            hmac.new(b"tok", b"https://x.test/ha1a1", hashlib.sha1).digest()
        ).decode()
    )


@pytest.mark.parametrize(
    ("url", "signature"),
    [
        (VECTOR_URL, "RSOYDt4T1cUTdK1PDd93/VVr8B8="),  # signed as called
        (VECTOR_URL.replace(".com", ".com:1234"), "RSOYDt4T1cUTdK1PDd93/VVr8B8="),  # port dropped
        (VECTOR_URL, "kvajT1Ptam85bY51eRf/AJRuM3w="),  # Twilio signed https://…:443/…
        (VECTOR_URL.replace("https", "http"), "0ZXoZLH/DfblKGATFgpif+LLRf4="),  # …:80/…
    ],
)
def test_a_signature_with_or_without_the_port_is_valid(url: str, signature: str) -> None:
    assert valid_twilio_signature(url, VECTOR_PARAMS, signature, "12345")
    assert not valid_twilio_signature(url, VECTOR_PARAMS, signature, "54321")


def test_signature_sorts_parameters_and_checks_in_constant_time() -> None:
    params = [("b", "2"), ("a", "1")]
    good = twilio_signature("https://x.test/hook", params, "tok")
    assert valid_twilio_signature("https://x.test/hook", list(reversed(params)), good, "tok")
    assert not valid_twilio_signature("https://x.test/hook", params, good, "other")
    assert not valid_twilio_signature("https://x.test/hook", params, None, "tok")
    assert not valid_twilio_signature("https://x.test/hook", params, good, None)


# --- configuration ----------------------------------------------------------------------------


def test_senders_from_the_environment() -> None:
    assert isinstance(sms_from_env({}), OutboxSms)
    assert isinstance(mailer_from_env({}), OutboxMailer)
    env = {
        "PAYHUB_TWILIO_ACCOUNT_SID": SID,
        "PAYHUB_TWILIO_AUTH_TOKEN": TOKEN,
        "PAYHUB_TWILIO_FROM": FROM,
        "PAYHUB_SMTP_HOST": "mail.example.com",
        "PAYHUB_SMTP_FROM": "billing@example.com",
        "PAYHUB_SMTP_PASSWORD": "smtp-secret",
    }
    assert isinstance(sms_from_env(env), TwilioSms)
    assert isinstance(mailer_from_env(env), SmtpMailer)
    shown = settings_from_env(env)
    assert (shown.sms, shown.sms_from, shown.email, shown.email_server) == (
        "twilio",
        FROM,
        "smtp",
        "mail.example.com:587",
    )
    assert TOKEN not in json.dumps(str(shown))
    assert "smtp-secret" not in str(shown)
    # only a token: texts stay in the outbox, but inbound webhooks can be verified
    outbox = sms_from_env({"PAYHUB_TWILIO_AUTH_TOKEN": TOKEN})
    assert isinstance(outbox, OutboxSms)
    signed = twilio_signature("https://x.test/h", [], TOKEN)
    assert outbox.verify_inbound("https://x.test/h", [], signed)
    assert not sms_from_env({}).verify_inbound("https://x.test/h", [], signed)
