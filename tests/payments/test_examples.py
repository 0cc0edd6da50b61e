"""The examples run as documented."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_in_process_example_charges_refunds_and_declines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runpy.run_path(str(EXAMPLES / "payments_in_process.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "Captured" in out
    assert "refunded 20: PartiallyRefunded 20.00 USD" in out
    assert "declined: generic_decline" in out
