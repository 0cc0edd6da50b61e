"""The pure short-link rules besides targets: codes, fields and expiry, status, the rolling
creation window, UTC day buckets, and which visits count as opens."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.errors import ValidationError
from payhub.domain.links import (
    CODE_LENGTH,
    CODE_RANDOM_BYTES,
    CREATION_WINDOW,
    EXPIRES_IN_DAYS_MAX,
    LinkStatus,
    check_click_days,
    check_page,
    clean_link_fields,
    daily_series,
    last_days,
    link_status,
    looks_like_code,
    new_code,
    seconds_until_slot,
    utc_day,
    window_start,
)
from payhub.domain.visitors import counts_as_open, is_automated

NOW = datetime(2025, 3, 14, 9, 26, 53, tzinfo=UTC)


def fields_at_fault(check: object) -> list[str]:
    assert callable(check)
    with pytest.raises(ValidationError) as caught:
        check()
    return [f.field for f in caught.value.fields]


# --- codes ---------------------------------------------------------------------------------


@given(st.binary(min_size=CODE_RANDOM_BYTES, max_size=CODE_RANDOM_BYTES))
def test_codes_are_eight_base62_characters_drawn_from_the_bytes(raw: bytes) -> None:
    try:
        code = new_code(raw)
    except ValueError:  # more than 24 of the 32 bytes above 247: not enough to draw from
        assert sum(b >= 248 for b in raw) > CODE_RANDOM_BYTES - CODE_LENGTH
        return
    assert len(code) == CODE_LENGTH
    assert looks_like_code(code)
    assert new_code(raw) == code


def test_codes_use_only_bytes_below_248_so_every_character_is_equally_likely() -> None:
    assert new_code(bytes([248, 255, 0, 1, 2, 3, 4, 5, 62, 123])) == "0123450z"
    with pytest.raises(ValueError, match="not enough"):
        new_code(bytes([250] * 32))


@pytest.mark.parametrize(
    "text", ["", "abc", "abcdefg", "abcdefghi", "abcd-efg", "abcdéfgh", "../../..", "healthz"]
)
def test_other_text_is_not_a_code(text: str) -> None:
    assert not looks_like_code(text)


# --- fields and expiry ---------------------------------------------------------------------


def test_fields_are_trimmed_and_blank_is_none() -> None:
    got = clean_link_fields(NOW, purpose="  invoice ", label=" ", client_reference="ord-1")
    assert (got.purpose, got.label, got.client_reference, got.expires_at) == (
        "invoice",
        None,
        "ord-1",
        None,
    )


@pytest.mark.parametrize(
    ("field", "limit"), [("purpose", 40), ("label", 120), ("clientReference", 100)]
)
def test_length_limits_are_exact(field: str, limit: int) -> None:
    name = {"clientReference": "client_reference"}.get(field, field)
    clean_link_fields(NOW, **{name: "x" * limit})
    assert fields_at_fault(lambda: clean_link_fields(NOW, **{name: "x" * (limit + 1)})) == [field]


def test_every_field_at_fault_is_named_at_once() -> None:
    faults = fields_at_fault(
        lambda: clean_link_fields(
            NOW,
            purpose="p" * 41,
            label="a\x00b",
            client_reference="r" * 101,
            expires_in_days=3,
            expires_at=NOW + timedelta(days=1),
        )
    )
    assert faults == ["purpose", "label", "clientReference", "expiresInDays", "expiresAtUtc"]


def test_expires_in_days_counts_from_now() -> None:
    assert clean_link_fields(NOW, expires_in_days=7).expires_at == NOW + timedelta(days=7)
    assert clean_link_fields(NOW, expires_in_days=EXPIRES_IN_DAYS_MAX).expires_at is not None


@pytest.mark.parametrize("days", [0, -1, EXPIRES_IN_DAYS_MAX + 1])
def test_expires_in_days_outside_the_range_is_refused(days: int) -> None:
    assert fields_at_fault(lambda: clean_link_fields(NOW, expires_in_days=days)) == [
        "expiresInDays"
    ]


def test_expires_at_is_kept_in_utc() -> None:
    local = datetime(2025, 3, 20, 12, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert clean_link_fields(NOW, expires_at=local).expires_at == datetime(
        2025, 3, 20, 17, 0, tzinfo=UTC
    )


@pytest.mark.parametrize(
    "moment",
    [
        NOW,
        NOW - timedelta(seconds=1),
        NOW + timedelta(days=EXPIRES_IN_DAYS_MAX, seconds=1),
        datetime(2025, 3, 20, 12, 0),  # no time zone
    ],
)
def test_expires_at_must_be_an_aware_future_moment(moment: datetime) -> None:
    assert fields_at_fault(lambda: clean_link_fields(NOW, expires_at=moment)) == ["expiresAtUtc"]


def test_status_revoked_wins_then_expired() -> None:
    later = NOW + timedelta(hours=1)
    assert link_status(None, None, NOW) is LinkStatus.ACTIVE
    assert link_status(None, later, NOW) is LinkStatus.ACTIVE
    assert link_status(None, NOW, NOW) is LinkStatus.EXPIRED
    assert link_status(NOW, later, NOW) is LinkStatus.REVOKED
    assert link_status(NOW, NOW - timedelta(days=1), NOW) is LinkStatus.REVOKED


@pytest.mark.parametrize("text", ["active", "EXPIRED", " revoked "])
def test_status_filter_reads_any_case(text: str) -> None:
    assert LinkStatus.parse(text).value == text.strip().lower()


def test_an_unknown_status_is_refused() -> None:
    assert fields_at_fault(lambda: LinkStatus.parse("deleted")) == ["status"]


@pytest.mark.parametrize(
    ("page", "size", "faults"),
    [
        (1, 1, []),
        (1, 200, []),
        (0, 50, ["page"]),
        (1, 0, ["pageSize"]),
        (0, 201, ["page", "pageSize"]),
    ],
)
def test_pages(page: int, size: int, faults: list[str]) -> None:
    if faults:
        assert fields_at_fault(lambda: check_page(page, size)) == faults
    else:
        check_page(page, size)


@pytest.mark.parametrize(("days", "ok"), [(0, False), (1, True), (365, True), (366, False)])
def test_click_days(days: int, ok: bool) -> None:
    if ok:
        assert check_click_days(days) == days
    else:
        assert fields_at_fault(lambda: check_click_days(days)) == ["days"]


# --- the rolling window --------------------------------------------------------------------


def test_below_the_limit_creation_is_allowed() -> None:
    assert seconds_until_slot(1999, 2000, None, NOW) is None


def test_at_the_limit_retry_after_is_when_the_oldest_leaves_the_window() -> None:
    oldest = NOW - timedelta(hours=23, minutes=59, seconds=30)
    assert seconds_until_slot(2000, 2000, oldest, NOW) == 30
    assert seconds_until_slot(2000, 2000, oldest + timedelta(milliseconds=1), NOW) == 31
    assert seconds_until_slot(2000, 2000, NOW, NOW) == 24 * 3600


@given(
    st.integers(min_value=1, max_value=50),
    st.integers(min_value=0, max_value=20),
    st.timedeltas(min_value=timedelta(0), max_value=CREATION_WINDOW - timedelta(microseconds=1)),
)
def test_retry_after_is_at_least_one_second_and_at_most_a_day(
    limit: int, over: int, age: timedelta
) -> None:
    wait = seconds_until_slot(limit + over, limit, NOW - age, NOW)
    assert wait is not None
    assert 1 <= wait <= 24 * 3600
    # once that many seconds pass, the row has left the window
    assert NOW - age <= window_start(NOW + timedelta(seconds=wait))


# --- days ----------------------------------------------------------------------------------


def test_days_are_utc_days() -> None:
    late_in_new_york = datetime(2025, 3, 14, 23, 30, tzinfo=timezone(timedelta(hours=-4)))
    assert utc_day(late_in_new_york) == date(2025, 3, 15)


def test_the_series_covers_every_day_oldest_first_with_zeros() -> None:
    series = daily_series({date(2025, 3, 12): 4, date(2025, 3, 14): 1, date(2025, 1, 1): 9}, NOW, 4)
    assert series == [
        (date(2025, 3, 11), 0),
        (date(2025, 3, 12), 4),
        (date(2025, 3, 13), 0),
        (date(2025, 3, 14), 1),
    ]


@given(st.integers(min_value=1, max_value=365), st.datetimes(timezones=st.just(UTC)))
def test_last_days_are_consecutive_and_end_today(days: int, now: datetime) -> None:
    got = last_days(now, days)
    assert len(got) == days
    assert got[-1] == utc_day(now)
    assert all(b - a == timedelta(days=1) for a, b in pairwise(got))


# --- who counts ----------------------------------------------------------------------------

BROWSERS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)"
    " Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like"
    " Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/120.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
    "Mozilla/5.0 (Linux; Android 13; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/119.0 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like"
    " Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,5]",
]

AUTOMATED = [
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot/1.0",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "WhatsApp/2.23.20.0 A",
    "TelegramBot (like TwitterBot)",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)",
    "Viber/20.0",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
    "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
    "Mozilla/5.0 (compatible; Datadog/Synthetics)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0",
    "curl/8.5.0",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
]


@pytest.mark.parametrize("agent", BROWSERS)
def test_a_browser_get_counts(agent: str) -> None:
    assert not is_automated(agent)
    assert counts_as_open("GET", agent)


@pytest.mark.parametrize("agent", AUTOMATED)
def test_previews_crawlers_monitors_and_scripts_do_not_count(agent: str) -> None:
    assert is_automated(agent)
    assert not counts_as_open("GET", agent)


@pytest.mark.parametrize(
    ("method", "agent", "purpose"),
    [
        ("HEAD", BROWSERS[0], None),
        ("GET", None, None),
        ("GET", "", None),
        ("GET", "   ", None),
        ("GET", BROWSERS[0], "prefetch"),
        ("GET", BROWSERS[0], "prefetch;prerender"),
        ("GET", BROWSERS[1], "preview"),
    ],
)
def test_heads_prefetches_and_agentless_requests_do_not_count(
    method: str, agent: str | None, purpose: str | None
) -> None:
    assert not counts_as_open(method, agent, purpose)
