"""From settings to a ready Evaluation: the one path both faces take (load, plan, target)."""

from __future__ import annotations

from collections.abc import Callable

from passk_tui.config import load_suite, make_target
from passk_tui.core.engine import Evaluation
from passk_tui.core.events import Event
from passk_tui.core.plan import new_evaluation_id
from passk_tui.core.settings import Settings


def new_evaluation(
    settings: Settings,
    key: str | None,
    on_event: Callable[[Event], None] | None = None,
) -> Evaluation:
    """Load the cases and the target (InputError on bad input); nothing runs yet."""
    cases = load_suite(settings)
    evaluation_id = new_evaluation_id()
    target = make_target(settings, key, evaluation_id)
    return Evaluation(evaluation_id, cases, settings, target, on_event=on_event)
