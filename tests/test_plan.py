"""Planned attempts and their idempotency keys."""

from __future__ import annotations

import re

from passk_tui.core.cases import Case
from passk_tui.core.plan import idempotency_key, new_evaluation_id, plan_attempts

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


def test_plan_is_attempt_major_and_skips_done() -> None:
    cases = [Case("a", "x", None), Case("b", "y", None)]
    plan = plan_attempts("ev_1", cases, 3, done=frozenset({(0, 2)}))
    assert [(p.case.name, p.attempt) for p in plan] == [
        ("a", 1),
        ("b", 1),
        ("b", 2),
        ("a", 3),
        ("b", 3),
    ]
    assert [p.index for p in plan] == list(range(5))
    assert len({p.key for p in plan}) == 5
