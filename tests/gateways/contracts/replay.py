"""Feed an adapter canned answers, one per request, through ``httpx.MockTransport``.

The answers are written after the vendor's published examples and are themselves checked
against the vendor's contract before use, so an adapter's mapping is tested against what
the vendor says it sends, not against what our fake happens to send."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx


class Replay:
    """Answers each request with the next canned response, after checking the request."""

    def __init__(
        self,
        answers: list[httpx.Response],
        check: Callable[[httpx.Request], None] | None = None,
    ) -> None:
        self.answers = list(answers)
        self.check = check
        self.requests: list[httpx.Request] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.check is not None:
            self.check(request)
        assert self.answers, f"no canned answer left for {request.method} {request.url}"
        return self.answers.pop(0)


@contextmanager
def replaying(
    answers: list[httpx.Response], check: Callable[[httpx.Request], None] | None = None
) -> Iterator[tuple[httpx.Client, Replay]]:
    replay = Replay(answers, check)
    with httpx.Client(transport=httpx.MockTransport(replay.handler)) as client:
        yield client, replay
    assert not replay.answers, "the adapter made fewer calls than the vendor flow needs"
