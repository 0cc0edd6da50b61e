"""Short-link targets (spec, short-link rule 1): a large table of addresses, and properties.

Every refusal is a ``ValidationError`` on ``targetUrl`` whose message says why; every
acceptance is the normalised address a browser would open. The properties generate hosts,
IP addresses in every spelling, credentials, ports and stray characters.
"""

# ruff: noqa: RUF001  (full-width look-alike characters are what these cases test)
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from payhub.domain.errors import ValidationError
from payhub.domain.links import (
    TARGET_MAX,
    Target,
    check_target,
    clean_domain,
    clean_short_domain,
    in_domains,
    looks_like_ipv4,
    parent_domains,
)
from payhub.domain.shorteners import SHORTENER_DOMAINS

OWN = {"go.payhub.io", "sbx.payhub-links.com"}
BLOCKED = {"evil-shop.com", "phish.example.org", "scam.github.io"}


def refusal(url: str, own: set[str] = OWN, blocked: set[str] = BLOCKED) -> str:
    with pytest.raises(ValidationError) as caught:
        check_target(url, own, blocked)
    assert [f.field for f in caught.value.fields] == ["targetUrl"]
    return caught.value.fields[0].message


# --- accepted, and how they are normalised ---------------------------------------------------

ACCEPTED = [
    ("https://example.com", "https://example.com/"),
    ("https://example.com/", "https://example.com/"),
    ("https://www.example.com/pay?invoice=42#top", "https://www.example.com/pay?invoice=42#top"),
    ("HTTPS://EXAMPLE.COM/Path", "https://example.com/Path"),
    ("https://Shop.Example.co.uk/a/b/c", "https://shop.example.co.uk/a/b/c"),
    ("https://example.com:443/x", "https://example.com/x"),
    ("https://example.com./x", "https://example.com/x"),
    ("https://a.b.c.d.example.net/", "https://a.b.c.d.example.net/"),
    ("https://my-shop.example.com", "https://my-shop.example.com/"),
    ("https://ab--cd.com/", "https://ab--cd.com/"),
    ("https://123shop.com/", "https://123shop.com/"),
    ("https://shop.123.example.com/", "https://shop.123.example.com/"),
    ("https://0x7f.example.com/", "https://0x7f.example.com/"),
    ("https://x.github.io/repo", "https://x.github.io/repo"),
    ("https://foo.blogspot.com/", "https://foo.blogspot.com/"),
    ("https://shop.myshopify.com/products/1", "https://shop.myshopify.com/products/1"),
    ("https://example.io/?a=1&b=2", "https://example.io/?a=1&b=2"),
    (
        "https://example.com/?next=https://other.com/",
        "https://example.com/?next=https://other.com/",
    ),
    ("https://example.com/a%20b", "https://example.com/a%20b"),
    ("https://example.com/@user", "https://example.com/@user"),
    ("https://example.com/#@evil.com", "https://example.com/#@evil.com"),
    ("https://example.com?@evil.com", "https://example.com/?@evil.com"),
    ("https://example.com/path;param", "https://example.com/path;param"),
    ('https://example.com/"q"', "https://example.com/%22q%22"),
    ("https://example.com/<b>", "https://example.com/%3Cb%3E"),
    ("https://bücher.de/", "https://xn--bcher-kva.de/"),
    ("https://BÜCHER.de/", "https://xn--bcher-kva.de/"),
    ("https://xn--bcher-kva.de/", "https://xn--bcher-kva.de/"),
    ("https://faß.de/", "https://xn--fa-hia.de/"),
    ("https://пример.рф/путь", "https://xn--e1afmkfd.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C"),
    ("https://例え.jp/", "https://xn--r8jz45g.jp/"),
    ("https://ｅｘａｍｐｌｅ.com/", "https://example.com/"),
    ("https://example。com/", "https://example.com/"),
    ("https://example.com/ü?ä=ö#ß", "https://example.com/%C3%BC?%C3%A4=%C3%B6#%C3%9F"),
    ("https://shop.example.museum/", "https://shop.example.museum/"),
    ("https://go.payhub.io.example.com/", "https://go.payhub.io.example.com/"),  # not OWN itself
    ("https://notbit.ly.example.com/", "https://notbit.ly.example.com/"),
    ("https://bitly.example.com/", "https://bitly.example.com/"),
    ("https://evil-shop.com.example.net/", "https://evil-shop.com.example.net/"),
    ("https://t.com/", "https://t.com/"),
    ("https://example.com/path/../x", "https://example.com/path/../x"),
    ("https://sub.domain.example.co.jp/", "https://sub.domain.example.co.jp/"),
    ("https://example.com/?q=a%26b", "https://example.com/?q=a%26b"),
    ("https://example.com/~user/", "https://example.com/~user/"),
    ("https://example.com/a+b", "https://example.com/a+b"),
    ("https://example.com/%E2%82%AC", "https://example.com/%E2%82%AC"),
    ("https://www.example.com:443", "https://www.example.com/"),
    ("https://EXAMPLE.COM:0443/", "https://example.com/"),
    ("https://example.travel/", "https://example.travel/"),
    ("https://a.b-c.d.example.com/", "https://a.b-c.d.example.com/"),
    ("https://example.com/path?", "https://example.com/path"),
    ("https://example.com/#", "https://example.com/"),
    ("https://1.example.com/", "https://1.example.com/"),
    ("https://example.com/\U0001f600", "https://example.com/%F0%9F%98%80"),
    ("https://shop.example.com/a'b", "https://shop.example.com/a'b"),
    ("https://café.fr/menu", "https://xn--caf-dma.fr/menu"),
]


@pytest.mark.parametrize(("url", "normalised"), ACCEPTED)
def test_accepted_targets_are_normalised(url: str, normalised: str) -> None:
    target = check_target(url, OWN, BLOCKED)
    assert target.url == normalised
    assert target.host == urlsplit(normalised).hostname


# --- refused, with the reason -------------------------------------------------------------

REFUSED = [
    # scheme
    ("http://example.com/", "http:// addresses are not accepted"),
    ("HTTP://example.com/", "http:// addresses are not accepted"),
    ("ftp://example.com/", "must be an https:// address"),
    ("javascript:alert(1)", "must be an https:// address"),
    ("data:text/html,hi", "must be an https:// address"),
    ("file:///etc/passwd", "must be an https:// address"),
    ("mailto:a@example.com", "must be an https:// address"),
    ("wss://example.com/", "must be an https:// address"),
    ("https//example.com", "must be a full https:// address"),
    ("//example.com/", "must be a full https:// address"),
    ("example.com", "must be a full https:// address"),
    ("https:example.com", "must be a full https:// address"),
    ("https:/example.com", "must be a full https:// address"),
    ("", "is required"),
    # no host
    ("https://", "must name a host"),
    ("https:///example.com", "must name a host"),
    ("https://:443/", "must name a host"),
    # IPv4 in every spelling
    ("https://127.0.0.1/", "IP address"),
    ("https://127.0.0.1:443/", "IP address"),
    ("https://10.0.0.1/", "IP address"),
    ("https://192.168.1.1/", "IP address"),
    ("https://169.254.169.254/latest/meta-data/", "IP address"),
    ("https://8.8.8.8/", "IP address"),
    ("https://2130706433/", "IP address"),  # decimal
    ("https://0x7f000001/", "IP address"),  # hex
    ("https://0X7F000001/", "IP address"),
    ("https://0x7f.0x0.0x0.0x1/", "IP address"),  # hex per part
    ("https://0177.0.0.1/", "IP address"),  # octal
    ("https://017700000001/", "IP address"),
    ("https://127.1/", "IP address"),  # short forms
    ("https://127.0.1/", "IP address"),
    ("https://0/", "IP address"),
    ("https://0x/", "IP address"),
    ("https://127.0.0.1./", "IP address"),  # final dot
    ("https://１２７.０.０.１/", "IP address"),  # full-width digits
    ("https://127。0。0。1/", "IP address"),  # ideographic dots
    ("https://example.com.127/", "IP address"),  # ends in a number
    ("https://shop.0x10/", "IP address"),
    ("https://0.0.0.0/", "IP address"),
    ("https://255.255.255.255/", "IP address"),
    ("https://1.1/", "IP address"),
    ("https://00000177.0.0.1/", "IP address"),
    # IPv6
    ("https://[::ffff:0a00:0001]/", "IP address"),
    ("https://[64:ff9b::127.0.0.1]/", "IP address"),
    ("https://[::1]/", "IP address"),
    ("https://[::1]:443/", "IP address"),
    ("https://[0:0:0:0:0:0:0:1]/", "IP address"),
    ("https://[::ffff:127.0.0.1]/", "IP address"),  # IPv4-mapped
    ("https://[::ffff:7f00:1]/", "IP address"),
    ("https://[fe80::1%25eth0]/", "IP address"),
    ("https://[2001:db8::1]/", "IP address"),
    ("https://[::]/", "IP address"),
    ("https://::1/", "port"),
    # localhost and internal names
    ("https://localhost/", "localhost"),
    ("https://LOCALHOST/", "localhost"),
    ("https://localhost./", "localhost"),
    ("https://app.localhost/", "localhost"),
    ("https://foo.localhost./", "localhost"),
    ("https://intranet/", "single name"),
    ("https://printer/", "single name"),
    ("https://com/", "single name"),
    ("https://nas.local/", ".local names are internal"),
    ("https://db.internal/", ".internal names are internal"),
    ("https://metadata.google.internal/", ".internal names are internal"),
    ("https://build.corp/", ".corp names are internal"),
    ("https://router.lan/", ".lan names are internal"),
    ("https://router.home/", ".home names are internal"),
    ("https://router.home.arpa/", ".home.arpa names are internal"),
    ("https://1.0.0.127.in-addr.arpa/", ".arpa names are internal"),
    ("https://host.localdomain/", ".localdomain names are internal"),
    ("https://site.test/", ".test names are internal"),
    ("https://site.example/", ".example names are internal"),
    ("https://site.invalid/", ".invalid names are internal"),
    ("https://hidden.onion/", ".onion names are internal"),
    ("https://127.0.0.1.nip.io/", "nip.io names resolve to private addresses"),
    ("https://10.0.0.1.sslip.io/", "sslip.io names resolve to private addresses"),
    ("https://app.localtest.me/", "localtest.me names resolve to private addresses"),
    ("https://lvh.me/", "lvh.me names resolve to private addresses"),
    # not under a public suffix
    ("https://shop.notarealtld/", "does not end in a known public domain suffix"),
    ("https://example.c0m/", "does not end in a known public domain suffix"),
    ("https://co.uk/", "only a public domain suffix"),
    ("https://github.io/", "IS-NOT-REFUSED"),  # github.io itself is a real site
    # credentials
    ("https://user@example.com/", "user name or password"),
    ("https://user:pass@example.com/", "user name or password"),
    ("https://:pass@example.com/", "user name or password"),
    ("https://example.com@evil.com/", "user name or password"),
    ("https://example.com:443@evil.com/", "user name or password"),
    ("https://@example.com/", "user name or password"),
    ("https://user%40x@example.com/", "user name or password"),
    # ports
    ("https://example.com:8443/", "port"),
    ("https://example.com:80/", "port"),
    ("https://example.com:0/", "port"),
    ("https://example.com:65536/", "port"),
    ("https://example.com:/", "port"),
    ("https://example.com:abc/", "port"),
    ("https://example.com:443:443/", "port"),
    ("https://example.com:8080/", "port"),
    ("https://example.com:4430/", "port"),
    ("https://example.com:４４３/", "port"),
    # spaces, control and invisible characters, backslashes
    ("https://example.com/a b", "spaces"),
    (" https://example.com/", "spaces"),
    ("https://example.com/ ", "spaces"),
    ("https://exa mple.com/", "spaces"),
    ("https://example.com/\t", "spaces"),
    ("https://example.com/\n", "spaces"),
    ("https://exa\nmple.com/", "spaces"),
    ("https://example.com/\r\nSet-Cookie: x=1", "spaces"),
    ("https://example.com/\x00", "spaces"),
    ("https://example.com/\x7f", "spaces"),
    ("https://example.com/\x85", "spaces"),
    ("https://example.com/\u00a0", "spaces"),
    ("https://example.com/\u3000", "spaces"),
    ("https://example.com/\u2028", "spaces"),
    ("https://exa\u200bmple.com/", "invisible"),
    ("https://example.com/\u202egnp.exe", "invisible"),
    ("https://example.com/\ufeff", "invisible"),
    ("https://ex\u00adample.com/", "invisible"),
    ("https://example.com/\u2029", "spaces"),
    ("https://exa\x00mple.com/", "spaces"),
    ("https://example.com\\@evil.com/", "backslashes"),
    ("https://example.com\\.evil.com/", "backslashes"),
    ("https:\\\\example.com/", "backslashes"),
    # malformed hosts
    ("https://exa%6dple.com/", "percent-encode"),
    ("https://%31%32%37.0.0.1/", "percent-encode"),
    ("https://a..example.com/", "empty label"),
    ("https://.example.com/", "empty label"),
    ("https://example.com../", "empty label"),
    ("https://.com/", "empty label"),
    ("https://example..com/", "empty label"),
    ("https://-shop.example.com/", "inner hyphens"),
    ("https://shop-.example.com/", "inner hyphens"),
    ("https://sh_op.example.com/", "inner hyphens"),
    ("https://sh*op.example.com/", "inner hyphens"),
    ("https://shop!.example.com/", "inner hyphens"),
    ("https://" + "a" * 64 + ".com/", "over 63 characters"),
    ("https://" + ".".join(["a" * 60] * 5) + ".com/", "over 253 characters"),
    ("https://xn--zz.com/", "not a valid international host name"),
    ("https://xn--.com/", "not a valid international host name"),
    ("https://😀.com/", "not a valid international host name"),
    ("https://[::1/", "not a valid address"),
    # other shorteners, with their subdomains and in any spelling
    ("https://bit.ly/abc", "another link-shortening service (bit.ly)"),
    ("https://BIT.LY/abc", "another link-shortening service (bit.ly)"),
    ("https://bit.ly./abc", "another link-shortening service (bit.ly)"),
    ("https://www.bit.ly/abc", "another link-shortening service (bit.ly)"),
    ("https://ｂｉｔ.ｌｙ/abc", "another link-shortening service (bit.ly)"),
    ("https://bitly.com/abc", "another link-shortening service (bitly.com)"),
    ("https://tinyurl.com/abc", "another link-shortening service (tinyurl.com)"),
    ("https://preview.tinyurl.com/abc", "another link-shortening service (tinyurl.com)"),
    ("https://t.co/abc", "another link-shortening service (t.co)"),
    ("https://goo.gl/abc", "another link-shortening service (goo.gl)"),
    ("https://ow.ly/abc", "another link-shortening service (ow.ly)"),
    ("https://is.gd/abc", "another link-shortening service (is.gd)"),
    ("https://rebrand.ly/abc", "another link-shortening service (rebrand.ly)"),
    ("https://cutt.ly/abc", "another link-shortening service (cutt.ly)"),
    ("https://tinyurl.com./abc", "another link-shortening service (tinyurl.com)"),
    ("https://t.ly/abc", "another link-shortening service (t.ly)"),
    ("https://rb.gy/abc", "another link-shortening service (rb.gy)"),
    ("https://s.id/abc", "another link-shortening service (s.id)"),
    ("https://lnkd.in/abc", "another link-shortening service (lnkd.in)"),
    ("https://l.facebook.com/l.php?u=x", "another link-shortening service (l.facebook.com)"),
    # the service's own short-link domains
    ("https://go.payhub.io/abc", "short link of this service (go.payhub.io)"),
    ("https://GO.PAYHUB.IO/abc", "short link of this service (go.payhub.io)"),
    ("https://sbx.payhub-links.com/abc", "short link of this service (sbx.payhub-links.com)"),
    ("https://x.sbx.payhub-links.com/abc", "short link of this service (sbx.payhub-links.com)"),
    # the abuse blocklist, with subdomains
    ("https://evil-shop.com/", "evil-shop.com, a domain blocked for abuse"),
    ("https://www.evil-shop.com/", "evil-shop.com, a domain blocked for abuse"),
    ("https://EVIL-SHOP.com./", "evil-shop.com, a domain blocked for abuse"),
    ("https://login.phish.example.org/", "phish.example.org, a domain blocked for abuse"),
    ("https://scam.github.io/", "scam.github.io, a domain blocked for abuse"),
    # length
    ("https://example.com/" + "a" * TARGET_MAX, f"at most {TARGET_MAX} characters"),
    ("https://example.com/" + "é" * 600, "once encoded"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_refused_targets_say_why(url: str, reason: str) -> None:
    if reason == "IS-NOT-REFUSED":
        assert check_target(url, OWN, BLOCKED).host == urlsplit(url).hostname
        return
    assert reason in refusal(url)


def test_the_tables_are_large() -> None:
    assert len(ACCEPTED) + len(REFUSED) >= 200


def test_every_listed_shortener_is_refused_with_its_subdomains() -> None:
    for domain in sorted(SHORTENER_DOMAINS):
        assert "link-shortening service" in refusal(f"https://{domain}/x"), domain
        assert domain in refusal(f"https://www.{domain}/x"), domain


def test_the_shortener_list_is_clean_ascii_domains() -> None:
    for domain in SHORTENER_DOMAINS:
        assert clean_domain(domain) == domain
        assert "." in domain


def test_a_domain_is_blocked_only_once_listed() -> None:
    assert check_target("https://evil-shop.com/", OWN, set()).host == "evil-shop.com"
    assert check_target("https://go.payhub.io/", set(), set()).host == "go.payhub.io"


# --- helpers ------------------------------------------------------------------------------


def test_parent_domains_and_matching() -> None:
    assert parent_domains("a.b.example.com") == [
        "a.b.example.com",
        "b.example.com",
        "example.com",
        "com",
    ]
    assert in_domains("a.b.example.com", {"example.com"}) == "example.com"
    assert in_domains("badexample.com", {"example.com"}) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("go.example.com", "go.example.com"),
        ("GO.Example.COM", "go.example.com"),
        ("https://go.example.com/", "go.example.com"),
        ("go.example.com:443", "go.example.com"),
        ("localhost:8000", "localhost:8000"),
        ("links.bücher.de", "links.xn--bcher-kva.de"),
    ],
)
def test_short_domains_are_host_names_with_an_optional_port(text: str, expected: str) -> None:
    assert clean_short_domain(text) == expected


@pytest.mark.parametrize(
    "text", ["", "go example.com", "go.example.com/x", "go_x.com", "a:b:c", "x:99999"]
)
def test_bad_short_domains_are_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        clean_short_domain(text)


@pytest.mark.parametrize("text", ["127.0.0.1", "0x7f.1", "a..b", "", "exa mple.com"])
def test_bad_blocklist_domains_are_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        clean_domain(text)


# --- properties ---------------------------------------------------------------------------

LETTERS = "abcdefghijklmnopqrstuvwxyz"
labels = st.from_regex(r"[a-z][a-z0-9]{0,10}(-[a-z0-9]{1,5})?", fullmatch=True)
public_suffixes = st.sampled_from(
    ["com", "net", "org", "co.uk", "de", "io", "com.au", "shop", "app"]
)
paths = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cc", "Cf", "Zs", "Zl", "Zp", "Cs"), blacklist_characters="\\#?"
    ),
    max_size=40,
).map(lambda s: "/" + s)


@st.composite
def public_hosts(draw: st.DrawFn) -> str:
    names = draw(st.lists(labels, min_size=1, max_size=3))
    host = ".".join([*names, draw(public_suffixes)])
    assume(in_domains(host, SHORTENER_DOMAINS | OWN | BLOCKED) is None)
    assume(not host.endswith(("nip.io", "sslip.io", "xip.io")))
    return host


@given(public_hosts(), paths)
def test_any_public_host_with_any_path_is_accepted_and_ascii(host: str, path: str) -> None:
    target = check_target(f"https://{host}{path}", OWN, BLOCKED)
    assert target.host == host
    assert target.url.isascii()
    assert target.url.startswith(f"https://{host}/")
    assert check_target(target.url, OWN, BLOCKED) == target  # normalising is idempotent


ipv4s = st.integers(min_value=0, max_value=2**32 - 1)


def _spellings(n: int) -> list[str]:
    a, b, c, d = ipaddress.IPv4Address(n).packed
    return [
        f"{a}.{b}.{c}.{d}",
        str(n),
        hex(n),
        f"0{n:o}",
        f"{hex(a)}.{hex(b)}.{hex(c)}.{hex(d)}",
        f"0{a:o}.0{b:o}.0{c:o}.0{d:o}",
        f"{a}.{(b << 16) | (c << 8) | d}",
        f"{a}.{b}.{(c << 8) | d}",
        f"{a}.{b}.{c}.{d}.",
        "．".join(str(x) for x in (a, b, c, d)),
        "".join(chr(0xFF10 + int(ch)) if ch.isdigit() else ch for ch in f"{a}.{b}.{c}.{d}"),
    ]


@given(ipv4s, st.sampled_from(range(11)))
def test_ipv4_addresses_are_refused_in_every_spelling(n: int, which: int) -> None:
    assert "IP address" in refusal(f"https://{_spellings(n)[which]}/x")


@given(st.ip_addresses(v=6))
def test_ipv6_addresses_are_refused(address: ipaddress.IPv6Address) -> None:
    assert "IP address" in refusal(f"https://[{address}]/")
    assert "IP address" in refusal(f"https://[{address.exploded}]:443/")


@given(ipv4s)
def test_ipv4_mapped_ipv6_addresses_are_refused(n: int) -> None:
    assert "IP address" in refusal(f"https://[::ffff:{ipaddress.IPv4Address(n)}]/")


@given(public_hosts(), st.text(alphabet=LETTERS + "0123456789:.-_~", min_size=0, max_size=12))
def test_any_user_info_is_refused(host: str, user: str) -> None:
    assert "user name or password" in refusal(f"https://{user}@{host}/")


@given(public_hosts(), st.integers(min_value=0, max_value=99999).filter(lambda p: p != 443))
def test_any_port_but_443_is_refused(host: str, port: int) -> None:
    assert "port" in refusal(f"https://{host}:{port}/")


refused_characters = st.characters(whitelist_categories=("Cc", "Cf", "Zs", "Zl", "Zp"))


@given(public_hosts(), paths, refused_characters, st.integers(min_value=0))
def test_a_space_or_control_character_anywhere_is_refused(
    host: str, path: str, ch: str, at: int
) -> None:
    url = f"https://{host}{path}"
    at %= len(url) + 1
    assert "characters" in refusal(url[:at] + ch + url[at:])


@given(st.sampled_from(sorted(SHORTENER_DOMAINS)), st.lists(labels, max_size=2), paths)
def test_shorteners_and_their_subdomains_are_refused(
    domain: str, subdomains: list[str], path: str
) -> None:
    host = ".".join([*subdomains, domain])
    assert "link-shortening service" in refusal(f"https://{host.upper()}{path}")


@given(st.text(max_size=80))
@example("https://")
@example("https://[")
@example("https://a.com:99999999999999999999/")
def test_any_text_is_accepted_or_refused_cleanly(text: str) -> None:
    try:
        target = check_target(text, OWN, BLOCKED)
    except ValidationError as e:
        refused = [f.field for f in e.fields]
    else:
        _assert_safe(target)
        return
    assert refused == ["targetUrl"]


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30), public_suffixes)
def test_any_unicode_host_is_accepted_only_as_a_safe_ascii_host(name: str, suffix: str) -> None:
    try:
        target = check_target(f"https://{name}.{suffix}/", OWN, BLOCKED)
    except ValidationError:
        return
    _assert_safe(target)


def _assert_safe(target: Target) -> None:
    parts = urlsplit(target.url)
    assert target.url.isascii()
    assert parts.scheme == "https"
    assert parts.hostname == target.host
    assert parts.port is None
    assert parts.username is None
    assert "." in target.host
    assert not looks_like_ipv4(target.host)
    with pytest.raises(ValueError, match="does not appear"):
        ipaddress.ip_address(target.host)
    assert in_domains(target.host, SHORTENER_DOMAINS | OWN | BLOCKED) is None
    assert not any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in target.url)


def test_the_public_suffix_list_is_the_bundled_snapshot_never_fetched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    from payhub.domain import links

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the Public Suffix List must never be fetched")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    links._suffixes.cache_clear()
    try:
        assert (
            check_target("https://shop.example.co.uk/", OWN, BLOCKED).host == "shop.example.co.uk"
        )
        assert "public domain suffix" in refusal("https://shop.notarealtld/")
    finally:
        links._suffixes.cache_clear()
