"""The core helpers the app's interval, gate and extension views read (pure, no Textual)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.policy import extension_runs, parse_more_attempts, worth_more
from passk_tui.core.run.sampling import interval_level
from passk_tui.core.run.sampling import reading as settings_reading
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.interval_choice import interval_choice
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, DEFAULT_CONFIDENCE
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE

SETTINGS = Settings(agent="a", version=1, cases_path="c.toml", attempts=5, k=3)


def adaptive(require: Fraction | None, confidence: float, max_attempts: int | None) -> Settings:
    """Settings with a gate at ``confidence``; adaptive up to ``max_attempts`` when given."""
    return replace(SETTINGS, require=require, confidence=confidence, max_attempts=max_attempts)


def test_fixed_n_without_confidence_reads_exact_intervals_at_the_default_level() -> None:
    assert interval_level(SETTINGS) == DEFAULT_CONFIDENCE
    assert interval_choice(SETTINGS, reached=True).method is CLOPPER_PEARSON


def test_adaptive_settings_read_the_anytime_valid_method_at_their_level() -> None:
    settings = adaptive(Fraction(8, 10), 0.9, 40)
    assert interval_level(settings) == 0.9
    assert interval_choice(settings, reached=True).method is CONFIDENCE_SEQUENCE
    reading = settings_reading([CaseFigures("x", 10, 10, 0, 0, 3)], settings)
    assert reading.confident and reading.method is CONFIDENCE_SEQUENCE and reading.level == 0.9


def test_point_gate_without_confidence_keeps_pass_and_fail() -> None:
    settings = replace(SETTINGS, require=Fraction(9, 10))
    reading = settings_reading(
        [CaseFigures("a", 5, 5, 0, 0, 3), CaseFigures("b", 5, 0, 5, 0, 3)], settings
    )
    assert not reading.confident
    assert [c.verdict for c in reading.cases] == ["pass", "fail"]


def test_worth_more_is_the_flaky_and_the_undecided() -> None:
    settings = adaptive(Fraction(8, 10), 0.95, None)
    figures = [
        CaseFigures("solid", 5, 5, 0, 0, 3),  # pass@3 at least 0.86
        CaseFigures("broken", 5, 0, 5, 0, 3),  # pass@3 up to 0.89: undecided
        CaseFigures("flaky", 5, 3, 2, 0, 3),
        CaseFigures("sure", 60, 60, 0, 0, 3),
    ]
    reading = settings_reading(figures, settings)
    assert [c.verdict for c in reading.cases] == ["pass", "undecided", "undecided", "pass"]
    assert worth_more(reading) == [1, 2]
    no_gate = settings_reading(figures, SETTINGS)
    assert worth_more(no_gate) == [2]


def test_extension_runs_count_every_missing_attempt_up_to_n() -> None:
    figures = [CaseFigures("a", 5, 5, 0, 0, 3), CaseFigures("b", 3, 1, 1, 1, 3, planned=5)]
    assert extension_runs(figures, 8) == 3 + 5
    assert extension_runs(figures, 8, [1]) == 5
    assert extension_runs(figures, 4) == 0 + 1


def test_more_attempts_must_grow() -> None:
    assert parse_more_attempts("10", 5) == 10
    with pytest.raises(InputError, match="more than the 5 attempts"):
        parse_more_attempts("5", 5)
    with pytest.raises(InputError, match="whole number"):
        parse_more_attempts("ten", 5)
