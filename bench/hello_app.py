"""The baseline: bare Litestar routes that do nothing, served the same way as payhub."""

from litestar import Litestar, Response, get
from litestar.params import FromPath


@get("/hello", sync_to_thread=False)
def hello() -> dict[str, str]:
    return {"hello": "world"}


@get("/healthz", sync_to_thread=False)
def health() -> dict[str, str]:
    return {"status": "ok"}


@get("/{code:str}", sync_to_thread=False)
def bare_redirect(code: FromPath[str]) -> Response[bytes]:
    """A redirect that reads nothing: the floor for payhub's short-link redirect."""
    return Response(
        b"",
        status_code=302,
        headers={"Location": f"https://shop.example.com/{code}", "Cache-Control": "no-store"},
    )


def create() -> Litestar:
    return Litestar([hello, health, bare_redirect])
