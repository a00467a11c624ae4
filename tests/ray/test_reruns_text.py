"""What is said of reruns: only attempts that ran on a Ray node count their retries as such."""

from __future__ import annotations

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.render.reruns_text import reruns, reruns_said


def record(retries: int, node: str | None) -> AttemptRecord:
    return AttemptRecord(
        0, "c", 1, "k", Outcome.PASSED, "completed", "ok", None, None, None, None, 0.0, 1.0,
        retries=retries, node=node,
    )  # fmt: skip


def test_only_attempts_on_a_node_count_their_retries_as_reruns() -> None:
    records = [record(2, "n1"), record(0, "n2"), record(3, None)]  # 3 stack retries: not reruns
    assert reruns(records) == 2
    assert reruns_said(records) == (
        "reruns: 2 attempts run again on another node after theirs died (each counted once)"
    )
    assert reruns_said([record(1, "n1")]) == (
        "reruns: 1 attempt run again on another node after theirs died (each counted once)"
    )
    assert reruns_said([record(0, "n1"), record(4, None)]) is None
