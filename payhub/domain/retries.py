"""How long to wait before trying again: capped exponential backoff with jitter.

Pure: the jitter fraction is passed in, so tests call it without sleeping or randomness.
"""

from __future__ import annotations

from datetime import timedelta

import attrs


@attrs.frozen
class RetryPolicy:
    base: timedelta = timedelta(seconds=30)
    cap: timedelta = timedelta(hours=1)
    max_attempts: int = 8

    def delay(self, attempt: int, jitter: float) -> timedelta:
        """The wait after failed attempt ``attempt`` (from 1); ``jitter`` in [0, 1] spreads it
        between half and all of the exponential ceiling, so retries back off but never align."""
        if attempt < 1:
            raise ValueError("attempts count from 1")
        ceiling = min(self.cap, self.base * (1 << min(attempt - 1, 30)))
        return ceiling * (0.5 + 0.5 * min(1.0, max(0.0, jitter)))

    def gives_up_after(self, attempt: int) -> bool:
        return attempt >= self.max_attempts
