"""Which interval an evaluation is read with, and why: decided here, for every face and export.

The exact (Clopper-Pearson) interval covers the truth with chance C only at an
n fixed before any attempt was seen. Once n is chosen by looking (an adaptive
evaluation; one extended with ``--resume ID --attempts N`` or ``--max-attempts``
after attempts were recorded; one stopped, or still running, short of its
planned n, where the user may stop on any look) the looks themselves pick the
n, and the exact interval's misses pile up: extended after "undecided" look after
look, a confident gate at 0.8 ends wrong up to 5.6% of the time by n = 640
against the 2.5% it promises, and 1.9% read as decided here
(``bench/extend_sim.py``, docs/benchmarks/notebook.md section 11). The confidence sequence
(``core.stats.rates.sequences``) covers the truth at every n at once, so it stays valid
however n was chosen: every interval, gate verdict and export of such an
evaluation uses it. A fixed-n evaluation that reached its planned n keeps the
exact interval, which is narrower at that n.

What decides it is stored with the evaluation (``Settings.extended``, and the
adaptive cap ``max_attempts``); whether the planned n was reached is read from
the attempts themselves (``CaseFigures.finished``), so a fixed-n run reads
anytime-valid while its attempts are landing and exact once the last is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from passk_tui.core.inputs.settings import Settings
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, IntervalMethod
from passk_tui.core.stats.rates.sequences import CONFIDENCE_SEQUENCE
from passk_tui.core.text.figure_text import level_text

#: Why an evaluation's n counts as fixed in advance, or as chosen by looking (``IntervalChoice.why``).
FIXED_AND_REACHED = "n was fixed in advance and reached as planned"
ADAPTIVE = "n was chosen by looking (adaptive)"
EXTENDED = "n was chosen by looking (extended after its figures were seen)"
SHORT_OF_PLAN = "n is short of its plan (it may be stopped on any look)"

#: What extending does to the intervals, said before the user confirms it.
EXTENDING_NOTE = (
    "From then on its intervals are the anytime-valid ones (n chosen by looking): "
    "wider, and valid however often they are looked at."
)


@dataclass(frozen=True, slots=True)
class IntervalChoice:
    """The evaluation's interval method and the reason for it, as every face names them."""

    method: IntervalMethod
    why: str

    @property
    def by_looking(self) -> bool:
        """Whether n was chosen by looking, so that only an anytime-valid reading is honest."""
        return self.method is not CLOPPER_PEARSON

    def line(self, level: float) -> str:
        """The intervals in one line, for stderr and the reports: which, at what level, why."""
        return f"intervals: {level_text(level)} {self.method.label}: {self.why}"

    @property
    def n_chosen(self) -> str:
        """``in advance`` or ``by looking``: how the .json names it."""
        return "by looking" if self.by_looking else "in advance"


def n_chosen_by_looking(settings: Settings) -> bool:
    """Whether the stored settings alone say n was chosen by looking: adaptive, or extended.

    What a comparison asks of each side (a fixed-n test is valid only when neither was).
    """
    return settings.adaptive or settings.extended


def interval_choice(settings: Settings, reached: bool) -> IntervalChoice:
    """The method for an evaluation with these settings; ``reached``: every case has the
    attempts planned for it (``planned_reached``)."""
    if settings.extended:
        return IntervalChoice(CONFIDENCE_SEQUENCE, EXTENDED)
    if settings.adaptive:
        return IntervalChoice(CONFIDENCE_SEQUENCE, ADAPTIVE)
    if not reached:
        return IntervalChoice(CONFIDENCE_SEQUENCE, SHORT_OF_PLAN)
    return IntervalChoice(CLOPPER_PEARSON, FIXED_AND_REACHED)


def planned_reached(figures: Sequence[CaseFigures]) -> bool:
    """Whether every case has all the attempts planned for it (withdrawn ones do not count)."""
    return all(f.finished for f in figures)


def evaluation_choice(settings: Settings, figures: Sequence[CaseFigures]) -> IntervalChoice:
    """The method for an evaluation whose cases stand at ``figures`` (all of them)."""
    return interval_choice(settings, planned_reached(figures))


def watched_text(settings: Settings) -> str:
    """What the Run screen says of the intervals it shows while attempts land."""
    if n_chosen_by_looking(settings):
        return "intervals anytime-valid"
    return "intervals anytime-valid until the last attempt is in, then exact"
