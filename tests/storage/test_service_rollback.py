"""A service call that fails midway leaves nothing behind, on either store.

The failure is injected through a port: randomness that gives out after a number of
draws, so the service fails after its first writes and before its last.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from payhub import PayHub


class FailingRandomness:
    """Real random bytes until ``budget`` draws are spent, then a crash."""

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def token_bytes(self, n: int) -> bytes:
        if self.budget <= 0:
            raise RuntimeError("injected failure")
        self.budget -= 1
        return secrets.token_bytes(n)


def test_creating_a_provider_fails_after_the_provider_row_and_leaves_nothing(
    store_url: str, tmp_path: Path
) -> None:
    # create_provider draws: provider id (1), then key id, key secret, key record id.
    for budget in (1, 2, 3):
        hub = PayHub.open(store_url, key_file=tmp_path / "k", randomness=FailingRandomness(budget))
        try:
            with pytest.raises(RuntimeError, match="injected"):
                hub.operators.create_provider("Half made")
            with hub.store.unit_of_work() as uow:
                assert uow.providers.list() == []
                assert uow.api_keys.list() == []
        finally:
            hub.close()
