"""Which fetches of a short address count as an open (spec, short-link rule 4).

An open is a person's browser following the link. Not counted (but still redirected):
link previews (chat apps and social sites fetching a card), search engines, uptime
monitors and scripts, browser prefetches, ``HEAD`` requests and requests with no
``User-Agent`` at all (every browser sends one).

Automated agents are recognised by the ``crawlerdetect`` package (the CrawlerDetect
patterns, maintained upstream; matched against the user agent, with a cache) plus the
in-repository list below, which covers preview and monitoring agents it misses; if the
package cannot be imported, a broad fallback list stands in for it. Add to the list when a
preview agent is seen being counted; each entry is a lower-case piece of a user agent that
no browser's user agent contains.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

PREVIEW_AND_MONITOR_AGENTS: tuple[str, ...] = (
    # link previews of chat and social apps
    "bluesky cardyb",
    "discordbot",
    "embedly",
    "facebookexternalhit",
    "iframely",
    "linkedinbot",
    "mastodon",
    "microsoftpreview",
    "pinterestbot",
    "skypeuripreview",
    "slackbot",
    "slack-imgproxy",
    "snap url preview",
    "steam http client",
    "telegrambot",
    "twitterbot",
    "viber/",
    "whatsapp",
    "zoom-linkpreview",
    # link checkers and security scanners
    "google-safety",
    "safelinks",
    # uptime monitors and synthetic checks
    "checkly",
    "datadog",
    "pingdom",
    "site24x7",
    "statuscake",
    "uptimerobot",
)

# Used only when ``crawlerdetect`` is not importable: broad tokens of robots and tools.
FALLBACK_AGENTS: tuple[str, ...] = (
    "bot/",
    "bot;",
    "bot)",
    "crawl",
    "curl/",
    "go-http-client",
    "headless",
    "http-client",
    "java/",
    "libwww",
    "okhttp",
    "python-",
    "spider",
    "wget",
)

_PREFETCH_WORDS = ("prefetch", "preview", "prerender")


@functools.cache
def _package_detector() -> Callable[[str], bool] | None:
    try:
        # The package ships no type information; its one call is wrapped typed below.
        from crawlerdetect import CrawlerDetect  # type: ignore[import-untyped]
    except ImportError:  # the in-repository list still applies
        return None
    detector = CrawlerDetect()
    return lambda agent: bool(detector.is_crawler(agent))


def is_automated(user_agent: str) -> bool:
    """True for a preview, crawler, monitor or script; False for a person's browser."""
    agent = user_agent.strip().lower()
    if any(token in agent for token in PREVIEW_AND_MONITOR_AGENTS):
        return True
    detect = _package_detector()
    if detect is None:
        return any(token in agent for token in FALLBACK_AGENTS)
    return detect(user_agent.strip())


def counts_as_open(method: str, user_agent: str | None, purpose: str | None = None) -> bool:
    """Whether this fetch of a short address is counted.

    ``purpose`` is the ``Sec-Purpose``, ``Purpose``, ``X-Purpose`` or ``X-Moz`` header a
    browser sends with a prefetch or preview (joined if several).
    """
    if method.upper() != "GET" or not user_agent or not user_agent.strip():
        return False
    if purpose and any(word in purpose.lower() for word in _PREFETCH_WORDS):
        return False
    return not is_automated(user_agent)
