"""The fake QuickBooks Online on a real loopback port, for a ``payhub serve`` process and
a browser: ``/connect/oauth2`` is Intuit's sign-in (it approves at once and redirects back
with a code), ``/oauth/…`` the token endpoints, ``/api/…`` the Accounting API. Each request
is handed to the same in-process fake the tests inspect."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from tests.integrations.fakes.qbo import API_HOST, OAUTH_HOST, FakeQuickBooks


@contextmanager
def serve_fake(fake: FakeQuickBooks, realm_id: str) -> Iterator[str]:
    """Yields the base address; the sign-in approves for ``realm_id``."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(size) if size else b""
            if self.path.startswith("/connect/oauth2"):
                back = fake.sign_in(f"{base}{self.path}", realm_id)
                self.send_response(302)
                self.send_header("Location", back)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.path.startswith("/oauth/"):
                url = f"https://{OAUTH_HOST}{self.path.removeprefix('/oauth')}"
            else:
                url = f"https://{API_HOST}{self.path.removeprefix('/api')}"
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            answer = fake.handle(httpx.Request(self.command, url, headers=headers, content=body))
            content = answer.read()
            self.send_response(answer.status_code)
            for name, value in answer.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = _answer
        do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    fake.authorize_url = f"{base}/connect/oauth2"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()
