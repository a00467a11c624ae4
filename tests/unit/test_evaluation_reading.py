"""EvaluationReading: made once per change of a live evaluation, the same of a stored one."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.core.stats.rates.interval_choice import evaluation_choice
from passk_tui.evaluations.reading import reading_of
from tests.support import ROOT
from tests.support.reports import evaluation, record


def test_a_live_reading_is_kept_until_its_progress_changes() -> None:
    stored = evaluation(2, 4, lambda c, a: Outcome.PASSED if a < 4 else Outcome.WRONG)
    progress = stored.progress()
    live: Any = SimpleNamespace(
        evaluation_id=stored.id,
        settings=stored.settings,
        progress=progress,
        status_reason=None,
        kept_reading=None,
    )
    first = reading_of(live)
    assert reading_of(live) is first  # asked again on the timer: not made again
    assert first.table() == reading_of(stored).table()  # live and stored read alike
    progress.add([record(0, 5, Outcome.WRONG)])
    again = reading_of(live)
    assert again is not first
    assert [f.passed for f in again.figures] == [3, 3] and again.figures[0].n == 5


def test_a_live_reading_goes_with_its_evaluation() -> None:
    """The kept reading holds the Progress (every record): it must not outlive the
    evaluation it was made of, or each evaluation the app opens stays in memory."""
    stored = evaluation(2, 4)
    live: Any = SimpleNamespace(
        evaluation_id=stored.id,
        settings=stored.settings,
        progress=stored.progress(),
        status_reason=None,
        kept_reading=None,
    )
    reading_of(live)
    gone = weakref.ref(live.progress)
    del live
    gc.collect()
    assert gone() is None


def test_the_gate_in_one_word() -> None:
    passing = evaluation(2, 4)
    assert (reading_of(passing).gate, reading_of(passing).exit_code) == (
        "pass",
        0,
    )
    failing = evaluation(2, 4, lambda c, a: Outcome.WRONG)
    assert (reading_of(failing).gate, reading_of(failing).exit_code) == (
        "fail",
        1,
    )


def test_the_choice_read_from_progress_is_the_one_every_cases_figures_call_for() -> None:
    """The reading tells whether every case has its planned attempts from Progress's counts
    (cheap, asked per line by the live grid); it must agree with asking each case's figures."""
    whole = evaluation(3, 4)
    short = replace(
        whole, records=[r for r in whole.records if (r.case_index, r.attempt) != (1, 4)]
    )
    adaptive = replace(whole, settings=replace(whole.settings, max_attempts=8))
    for stored in (whole, short, adaptive):
        reading = reading_of(stored)
        assert reading.choice == evaluation_choice(stored.settings, stored.figures())
    assert (reading_of(whole).choice.by_looking, reading_of(short).choice.by_looking) == (
        False,
        True,
    )


def test_a_report_reads_at_the_level_asked_by_the_evaluations_own_method() -> None:
    stored = evaluation(2, 4, lambda c, a: Outcome.PASSED if a < 4 else Outcome.WRONG)
    reading = reading_of(stored)
    at = reading.read_at(0.8)
    assert at.level == 0.8 and at.method is reading.choice.method
    assert reading.read_at(None).level == reading.reading.level  # as the settings say


def test_the_vocabulary_loads_each_name_only_when_asked() -> None:
    """A plain run names a cell without loading the comparison's tests (PEP 562)."""
    code = (
        "import sys\n"
        "from passk_tui.core.reading.vocabulary import Cell\n"
        "print('passk_tui.core.stats.comparing.compare' in sys.modules)\n"
        "from passk_tui.core.reading.vocabulary import CaseComparison\n"
        "print('passk_tui.core.stats.comparing.compare' in sys.modules)\n"
        "import passk_tui.core.reading.vocabulary as v\n"
        "print(hasattr(v, 'evaluation_choice'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == ["False", "True", "False"], done.stderr
