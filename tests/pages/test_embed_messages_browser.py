"""Where the embed page's messages go, spied on in a real chromium (issue 7 item 9).

An init script in the payhub frame replaces its ``window.parent`` (a replaceable attribute)
with a spy that records the ``targetOrigin`` of every ``postMessage`` before passing it on to
the real parent, so the test sees every message the page posts, not only the ones a host
receives. The host pages record every message that reaches them, whatever its origin. After
the page's own messages, the spy posts a marker through the real parent: messages between two
windows arrive in order, so once the host has the marker it has everything it will ever get.

Two paths of ``parentOrigins`` in ``payhub_server/static/pay-page.js``:
- known parent (``location.ancestorOrigins``): only that origin, and only when it is allowed;
- unknown parent (``hide_parent``: ``ancestorOrigins`` reads as empty, and the host frames
  with ``referrerpolicy="no-referrer"``, like a browser without ``ancestorOrigins``): each
  allowed origin by name, which the browser delivers only to a parent of that origin.
A non-allowed host can frame the page only once the CSP's ``frame-ancestors`` is struck out of
the response: that is how the test proves the messages themselves never reach it either.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Frame, Page, Route, expect

from tests.pages.live import Live

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ALLOWED = "https://shop.example"
SECOND = "https://second-shop.example"
FOREIGN = "https://evil.example"
MARKER = "test-marker"


def spy_script(payhub_origin: str, hide_parent: bool) -> str:
    """Runs in every frame before its scripts; acts only in the framed payhub page."""
    hide = (
        "Object.defineProperty(DOMStringList.prototype, 'length', {get: function () {"
        " return 0; }, configurable: true});"
        if hide_parent
        else ""
    )
    return f"""(function () {{
  if (window === window.top || location.origin !== {json.dumps(payhub_origin)}) return;
  {hide}
  var real = window.parent;
  window.__posts = [];
  window.__marker = function () {{ real.postMessage({{source: "{MARKER}"}}, "*"); }};
  window.parent = {{
    postMessage: function (message, target) {{
      var origin = typeof target === "string" ? target : (target || {{}}).targetOrigin;
      window.__posts.push({{type: message && message.type, target: String(origin)}});
      return real.postMessage.apply(real, arguments);
    }}
  }};
}})();"""


def host_page(embed_url: str) -> str:
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head>
<body><iframe id="payhub" src="{embed_url}" referrerpolicy="no-referrer" title="Pay invoice"
 style="width:100%;height:900px;border:0"></iframe>
<script>
window.received = [];
window.addEventListener("message", function (event) {{
  window.received.push({{origin: event.origin, data: event.data}});
}});
</script></body></html>"""


def open_host(page: Page, origin: str, embed_url: str, live: Live, hide_parent: bool) -> Frame:
    def fulfil(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body=host_page(embed_url))

    page.add_init_script(spy_script(live.base, hide_parent))
    page.route(f"{origin}/**", fulfil)
    page.goto(f"{origin}/checkout")
    expect(page.frame_locator("#payhub").locator("#pay-form")).to_be_visible()
    frame = page.frame(url=re.compile("/embed/"))
    assert frame is not None
    return frame


def settle(page: Page, frame: Frame, posted: int) -> tuple[list[dict[str, str]], list[Any]]:
    """Wait for ``posted`` spied posts, then for the marker: (posts, what the host got)."""
    frame.wait_for_function("n => window.__posts.length >= n", arg=posted)
    # The posts so far and the marker in one turn of the frame's event loop: nothing the
    # page posts later can slip in between.
    posts: list[dict[str, str]] = frame.evaluate(
        "(() => { const posts = window.__posts.slice(); window.__marker(); return posts; })()"
    )
    page.wait_for_function("s => window.received.some(m => m.data.source === s)", arg=MARKER)
    received: list[Any] = page.evaluate("window.received")
    cut = next(i for i, m in enumerate(received) if m["data"] == {"source": MARKER})
    return posts, received[:cut]


def embed_url(live: Live, origins: tuple[str, ...]) -> tuple[str, str, str]:
    ref = live.merchant(origins=origins)
    invoice = live.invoice(ref, live.customer(ref))
    number = invoice["invoiceNumber"]
    live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/send"))
    embed = live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/embed"))
    assert embed["allowedOrigins"] == list(origins)
    return ref, number, str(embed["embedUrl"])


def decline(frame: Frame) -> None:
    """A failed payment: the page posts a "failed" message as well."""
    frame.get_by_label("Card number").fill("4000 0000 0000 0002")
    frame.get_by_label("Expiry (MM/YY)").fill("12/34")
    frame.get_by_label("Security code").fill("123")
    frame.locator("#pay-submit").click()
    frame.wait_for_function("() => window.__posts.some(p => p.type === 'failed')")


def test_a_known_allowed_parent_is_the_only_target(live: Live, page: Page) -> None:
    ref, number, url = embed_url(live, (SECOND, ALLOWED))
    frame = open_host(page, ALLOWED, url, live, hide_parent=False)
    assert frame.evaluate("location.ancestorOrigins[0]") == ALLOWED
    decline(frame)
    posts, received = settle(page, frame, 3)
    types = [p["type"] for p in posts]
    assert types[0] == "loaded"
    assert {"loaded", "resize", "failed"} <= set(types)
    assert {p["target"] for p in posts} == {ALLOWED}  # never "*", never the other site
    # The host got exactly what was posted, in order, from payhub's origin.
    assert [m["data"]["type"] for m in received] == types
    assert {m["origin"] for m in received} == {live.base}
    assert all(m["data"]["invoiceNumber"] == number for m in received)
    assert live.read(ref, number)["amountPaid"] == 0


def test_an_unknown_parent_is_addressed_by_each_allowed_origin_by_name(
    live: Live, page: Page
) -> None:
    _, number, url = embed_url(live, (SECOND, ALLOWED))
    frame = open_host(page, ALLOWED, url, live, hide_parent=True)
    # The fallback path: no ancestorOrigins and no referrer.
    assert frame.evaluate("[location.ancestorOrigins.length, document.referrer]") == [0, ""]
    decline(frame)
    posts, received = settle(page, frame, 6)
    assert "*" not in {p["target"] for p in posts}
    types = [p["type"] for p in posts[::2]]
    assert {"loaded", "resize", "failed"} <= set(types)
    # Each message is addressed to each allowed origin, in the allowed list's order...
    assert posts == [{"type": t, "target": o} for t in types for o in (SECOND, ALLOWED)]
    # ...and the browser delivers it once: only the copy addressed to the host's origin.
    assert [m["data"]["type"] for m in received] == types
    assert {m["origin"] for m in received} == {live.base}
    assert all(m["data"]["invoiceNumber"] == number for m in received)


def without_frame_ancestors(route: Route) -> None:
    """The real embed page with its CSP's ``frame-ancestors`` struck out (and nothing else),
    as if that protection had failed: the messages must still reach no foreign host."""
    response = route.fetch()
    headers = dict(response.headers)
    csp = headers.pop("content-security-policy")
    kept = [d for d in csp.split(";") if not d.strip().startswith("frame-ancestors")]
    assert len(kept) < len(csp.split(";"))
    headers["content-security-policy"] = ";".join(kept)
    route.fulfill(response=response, headers=headers)


@pytest.mark.parametrize("hide_parent", [False, True], ids=["known-parent", "unknown-parent"])
def test_a_host_that_is_not_allowed_receives_nothing(
    live: Live, browser: Browser, hide_parent: bool
) -> None:
    _, _, url = embed_url(live, (ALLOWED,))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.route(url, without_frame_ancestors)
        frame = open_host(page, FOREIGN, url, live, hide_parent=hide_parent)
        if hide_parent:
            # Not knowing its parent, the page addresses the allowed site only...
            posts, received = settle(page, frame, 2)
            assert {p["type"] for p in posts} >= {"loaded", "resize"}
            assert {p["target"] for p in posts} == {ALLOWED}
        else:
            # Knowing its parent is not allowed, the page posts nothing at all.
            assert frame.evaluate("location.ancestorOrigins[0]") == FOREIGN
            posts, received = settle(page, frame, 0)
            assert posts == []
        assert received == []  # the foreign host heard nothing
    finally:
        context.close()
