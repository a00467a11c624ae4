"""Planned attempts and their idempotency keys."""

from __future__ import annotations

import re

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.run.attempt_keys import (
    MAX_PLANNED,
    PlannedAttempt,
    check_planned_size,
    idempotency_key,
    new_evaluation_id,
)
from passk_tui.core.run.cases import Case

VISIBLE = re.compile(r"^[\x21-\x7e]{1,255}$")


def test_keys_distinct_visible_and_stable() -> None:
    names = ["a", "a/1", "a b", "ünïcödé", "x" * 300, "a/c/b", "", "🙂", "c"]
    ev = new_evaluation_id()
    keys = {(n, a): idempotency_key(ev, n, a) for n in names for a in range(1, 12)}
    assert len(set(keys.values())) == len(keys)
    assert all(VISIBLE.match(k) for k in keys.values())
    assert idempotency_key(ev, "ünïcödé", 3) == keys[("ünïcödé", 3)]
    other = new_evaluation_id()
    assert other != ev
    assert idempotency_key(other, "a", 1) != keys[("a", 1)]


def test_retake_zero_is_the_first_key_and_retakes_are_distinct() -> None:
    names = ["a", "a/1", "a/1/r2", "x" * 300, "🙂", "3"]
    ev = new_evaluation_id()
    keys = {
        (n, a, r): idempotency_key(ev, n, a, r)
        for n in names
        for a in range(1, 6)
        for r in range(4)
    }
    assert len(set(keys.values())) == len(keys)
    assert all(VISIBLE.match(k) for k in keys.values())
    assert idempotency_key(ev, "a", 2, 0) == idempotency_key(ev, "a", 2) == f"{ev}/c/a/2"
    assert idempotency_key(ev, "a", 2, 1) == f"{ev}/c/a/2/r1"


def test_planned_attempt_carries_its_derived_key() -> None:
    case = Case("b", "y", None)
    planned = PlannedAttempt.of("ev_1", 1, case, 4, retake=2)
    assert (planned.case_index, planned.attempt, planned.retake) == (1, 4, 2)
    assert planned.key == idempotency_key("ev_1", "b", 4, 2)


def test_absurd_counts_are_refused() -> None:
    check_planned_size(10, MAX_PLANNED // 10)
    with pytest.raises(InputError, match="more than the 10,000,000 one evaluation may plan"):
        check_planned_size(2, MAX_PLANNED)
