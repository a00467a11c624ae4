"""Marked tests: each body runs once per attempt, and the test passes or fails by its gate."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Agent = Callable[[str], str]


@pytest.mark.passk(attempts=10, k=3, require=0.8)
def test_refund_policy(agent: Agent) -> None:
    # 8 of 10 pass: pass@3 is 1.00, at or above 0.8: the test passes.
    assert "refund" in agent("Can I get a refund?").lower()


@pytest.mark.passk(attempts=10, k=3, require=0.95)
def test_order_status(agent: Agent) -> None:
    # 5 of 10 pass (the lookup errors on the other 5): pass@3 0.92 is below 0.95: it fails.
    assert "shipped" in agent("Where is my order?")


@pytest.mark.passk(attempts=10, k=3, require=0.9, confidence=0.95)
def test_refund_policy_confidently(agent: Agent) -> None:
    # 8 of 10 again, read by the confident gate against 0.9: the pass@3 interval reaches
    # both sides of 0.9, so 10 attempts cannot tell: undecided, and the test fails saying so.
    assert "refund" in agent("Do you refund orders?").lower()


@pytest.mark.passk(attempts=10, k=3)
def test_unknown_question(agent: Agent) -> None:
    # No require: the test only reports (always wrong here, and it passes).
    assert "refund" in agent("Do you sell gift cards?")
