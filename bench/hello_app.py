"""The baseline: a bare Litestar route that does nothing, served the same way as payhub."""

from litestar import Litestar, get


@get("/hello", sync_to_thread=False)
def hello() -> dict[str, str]:
    return {"hello": "world"}


@get("/healthz", sync_to_thread=False)
def health() -> dict[str, str]:
    return {"status": "ok"}


def create() -> Litestar:
    return Litestar([hello, health])
