"""The pure rules: Standard Webhooks signatures checked against the ``standardwebhooks``
package, the retry schedule, Retry-After, and the target address rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from payhub.adapters.webhooks.sender import allowed_address
from payhub.domain.errors import ValidationError
from payhub.domain.webhooks import (
    MAX_ATTEMPTS,
    RETRY_SCHEDULE,
    check_event_types,
    check_url,
    delivered,
    new_secret,
    next_attempt_delay,
    parse_retry_after,
    sign,
    signed_headers,
)
from tests.webhooks.conftest import WebhookAt

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@given(
    raw=st.binary(min_size=24, max_size=64),
    body=st.text(max_size=500),
    msg=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=40),
)
def test_signatures_match_the_standard_webhooks_package(raw: bytes, body: str, msg: str) -> None:
    secret = new_secret(raw)
    ours = sign(secret, msg, int(NOW.timestamp()), body.encode())
    assert ours == Webhook(secret).sign(msg, NOW, body)


def test_the_package_verifies_our_headers_and_refuses_a_wrong_secret() -> None:
    secret = new_secret(bytes(range(32)))
    body = b'{"type":"invoice.paid","timestamp":"2026-01-02T03:04:05Z","data":{"id":"inv_1"}}'
    headers = signed_headers([secret], "evt_1", int(NOW.timestamp()), body)
    assert WebhookAt(secret, NOW).verify(body, headers)["data"] == {"id": "inv_1"}
    with pytest.raises(WebhookVerificationError):
        WebhookAt(new_secret(bytes(32)), NOW).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        WebhookAt(secret, NOW).verify(body.replace(b"inv_1", b"inv_2"), headers)
    with pytest.raises(WebhookVerificationError):
        WebhookAt(secret, NOW + timedelta(minutes=6)).verify(body, headers)


def test_two_secrets_give_two_signatures_each_verifiable() -> None:
    old, new = new_secret(b"\x01" * 24), new_secret(b"\x02" * 24)
    headers = signed_headers([new, old], "evt_9", int(NOW.timestamp()), b"{}")
    assert headers["webhook-signature"].count("v1,") == 2
    for secret in (old, new):
        WebhookAt(secret, NOW).verify(b"{}", headers)


def test_secrets_need_24_random_bytes() -> None:
    assert new_secret(bytes(24)).startswith("whsec_")
    with pytest.raises(ValueError, match="24"):
        new_secret(bytes(23))


def test_the_retry_schedule_is_the_documented_one() -> None:
    assert [int(d.total_seconds()) for d in RETRY_SCHEDULE] == [
        0,
        5,
        300,
        1800,
        7200,
        18000,
        36000,
        36000,
    ]
    delays = [next_attempt_delay(n, 500, None) for n in range(1, MAX_ATTEMPTS + 1)]
    assert delays == [*RETRY_SCHEDULE[1:], None]


@given(attempts=st.integers(1, MAX_ATTEMPTS - 1), seconds=st.integers(0, 10**6))
def test_retry_after_is_honoured_on_429_and_503_only_and_capped(
    attempts: int, seconds: int
) -> None:
    wait = timedelta(seconds=seconds)
    for status in (429, 503):
        expected = min(max(wait, timedelta(seconds=1)), timedelta(hours=10))
        assert next_attempt_delay(attempts, status, wait) == expected
    assert next_attempt_delay(attempts, 500, wait) == RETRY_SCHEDULE[attempts]
    assert next_attempt_delay(MAX_ATTEMPTS, 429, wait) is None


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert parse_retry_after("120", NOW) == timedelta(seconds=120)
    assert parse_retry_after("Fri, 02 Jan 2026 03:06:05 GMT", NOW) == timedelta(minutes=2)
    assert parse_retry_after("Thu, 01 Jan 2026 00:00:00 GMT", NOW) == timedelta(0)
    assert parse_retry_after("soon", NOW) is None
    assert parse_retry_after(None, NOW) is None


def test_only_2xx_is_delivered() -> None:
    assert [delivered(s) for s in (200, 204, 299, 301, 302, 400, 500, None)] == [
        True,
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",
        "https://127.0.0.1/x",
        "https://2130706433/x",
        "https://[::1]/x",
        "https://localhost/x",
        "https://intranet/x",
        "https://erp.corp/x",
        "https://127.0.0.1.nip.io/x",
        "https://user:pw@hooks.example.com/x",
        "https://hooks.example.com:8443/x",
        "https://bit.ly/abc",
        "https://hooks.example.com/x#part",
        "ftp://hooks.example.com/x",
    ],
)
def test_target_rules_refuse(url: str) -> None:
    with pytest.raises(ValidationError) as refused:
        check_url(url)
    assert [f.field for f in refused.value.fields] == ["url"]


def test_target_rules_accept_and_normalise_public_https() -> None:
    assert check_url("https://Hooks.Example.COM/in?x=1") == "https://hooks.example.com/in?x=1"


def test_loopback_only_with_the_test_setting() -> None:
    for url in ("http://127.0.0.1:8123/hook", "http://localhost:9/x", "http://[::1]:80/x"):
        with pytest.raises(ValidationError):
            check_url(url)
        assert check_url(url, allow_loopback=True) == url
    with pytest.raises(ValidationError):
        check_url("http://10.0.0.1:80/x", allow_loopback=True)


@pytest.mark.parametrize(
    ("address", "loopback_ok", "allowed"),
    [
        ("93.184.216.34", False, True),
        ("2606:2800:220:1:248:1893:25c8:1946", False, True),
        ("127.0.0.1", False, False),
        ("127.0.0.1", True, True),
        ("::1", False, False),
        ("10.0.0.5", True, False),
        ("192.168.1.1", False, False),
        ("172.16.0.1", False, False),
        ("169.254.169.254", False, False),  # cloud metadata
        ("100.64.0.1", False, False),  # carrier-grade NAT
        ("::ffff:10.0.0.1", False, False),
        ("fe80::1", False, False),
        ("fd00::1", False, False),
        ("0.0.0.0", False, False),  # noqa: S104 (an address to refuse, not to bind)
        ("224.0.0.1", False, False),
    ],
)
def test_resolved_addresses_must_be_public(address: str, loopback_ok: bool, allowed: bool) -> None:
    assert allowed_address(address, loopback_ok) is allowed


def test_event_types() -> None:
    assert check_event_types(["*"]) == ("*",)
    assert check_event_types(["invoice.paid", " invoice.paid", "payment.refunded"]) == (
        "invoice.paid",
        "payment.refunded",
    )
    with pytest.raises(ValidationError):
        check_event_types(["invoice.paid"], known={"invoice.sent"})
