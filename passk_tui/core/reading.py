"""Which intervals an evaluation's figures carry, read from its settings: the level and the method.

Every face shows the same intervals for one evaluation: at its ``--confidence``
(0.95 when none was given), by the anytime-valid confidence sequence when it is
adaptive (``--max-attempts``: its cases stop when decided, which a fixed-n
interval does not allow for), else by the exact Clopper-Pearson interval.
The settings are read with ``getattr`` so that settings without the adaptive
fields (older stores, older builds) read as fixed-n at the default level.
"""

from __future__ import annotations

from collections.abc import Sequence

from passk_tui.core.figures import CaseFigures
from passk_tui.core.gate import Reading, read
from passk_tui.core.intervals import CLOPPER_PEARSON, DEFAULT_CONFIDENCE, IntervalMethod
from passk_tui.core.sequences import CONFIDENCE_SEQUENCE
from passk_tui.core.settings import Settings


def given_confidence(settings: Settings) -> float | None:
    """The evaluation's ``--confidence``, None when not given (the seed's point gate)."""
    value = getattr(settings, "confidence", None)
    return None if value is None else float(value)


def interval_level(settings: Settings) -> float:
    """The level of every interval shown for the evaluation."""
    given = given_confidence(settings)
    return DEFAULT_CONFIDENCE if given is None else given


def is_adaptive(settings: Settings) -> bool:
    return getattr(settings, "max_attempts", None) is not None


def interval_method(settings: Settings) -> IntervalMethod:
    """Anytime-valid for an adaptive evaluation, exact Clopper-Pearson for a fixed-n one."""
    return CONFIDENCE_SEQUENCE if is_adaptive(settings) else CLOPPER_PEARSON


def settings_reading(figures: Sequence[CaseFigures], settings: Settings) -> Reading:
    """The figures read with the evaluation's own level, method and gate."""
    return read(figures, settings.require, given_confidence(settings), interval_method(settings))
