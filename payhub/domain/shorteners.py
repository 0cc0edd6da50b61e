"""Other link-shortening services: a short link may not point at one (spec, short-link rule 1).

A chain of shorteners hides where a visitor really ends up, which is how abusers get past
link scanners, so payhub refuses targets on these domains and on any of their subdomains.
First-party short domains that lead only to their owner's own site (``youtu.be``,
``aka.ms``, ``amzn.to``) are not listed: where they lead is never in doubt.

Maintained by hand: add a domain (lower case, A-label form) with the service it belongs to
in a comment, keep each block sorted, and run ``tests/links/test_targets.py``. Domains an
operator finds abused at run time go on the blocklist instead (``payhub links blocklist``).
"""

from __future__ import annotations

SHORTENER_DOMAINS: frozenset[str] = frozenset(
    {
        # General-purpose shorteners
        "1url.com",
        "2.gp",
        "bit.do",
        "bit.ly",  # Bitly
        "bitly.com",  # Bitly
        "bl.ink",
        "budurl.com",
        "chilp.it",
        "cli.gs",
        "clck.ru",  # Yandex
        "cort.as",
        "cur.lv",
        "cutt.ly",
        "cutt.us",
        "dub.co",
        "dub.sh",
        "dwz.cn",  # Baidu
        "gg.gg",
        "goo.gl",  # Google (retired, still redirects)
        "goo.su",
        "han.gl",
        "is.gd",
        "j.mp",  # Bitly
        "kutt.it",
        "lc.cx",
        "lnk.co",
        "me2.do",  # Naver
        "migre.me",
        "n9.cl",
        "qr.net",
        "qrco.de",
        "rb.gy",
        "rebrand.ly",
        "rotf.lol",  # TinyURL
        "s.id",
        "short.gy",  # Short.io
        "short.io",
        "shorturl.at",
        "shrtco.de",
        "snipurl.com",
        "snurl.com",
        "sn.im",
        "su.pr",
        "surl.li",
        "t.cn",  # Weibo
        "t.ly",
        "t2m.io",
        "tiny.cc",
        "tiny.one",  # TinyURL
        "tiny.pl",
        "tinyurl.com",
        "tny.im",
        "tr.im",
        "u.to",
        "ur3.us",
        "url.cn",  # Tencent
        "urlz.fr",
        "v.gd",
        "vk.cc",  # VK
        "x.co",
        "x.gd",
        "xrl.us",
        "zpr.io",
        # Social and marketing tools that wrap any address
        "buff.ly",  # Buffer
        "dlvr.it",
        "ht.ly",  # Hootsuite
        "hubs.la",  # HubSpot
        "hubs.ly",  # HubSpot
        "ift.tt",  # IFTTT
        "l.facebook.com",  # Facebook's outbound link shim
        "l.instagram.com",
        "lm.facebook.com",
        "lnk.to",
        "lnkd.in",  # LinkedIn
        "ow.ly",  # Hootsuite
        "po.st",
        "smarturl.it",
        "spr.ly",
        "t.co",  # X (Twitter)
        "trib.al",
        # Paid-per-click shorteners (interstitial ads, often abused)
        "adf.ly",
        "adfoc.us",
        "bc.vc",
        "exe.io",
        "fc.lc",
        "linkvertise.com",
        "oke.io",
        "ouo.io",
        "ouo.press",
        "sh.st",
        "shorte.st",
    }
)
