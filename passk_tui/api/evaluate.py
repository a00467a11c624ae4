"""``passk_tui.evaluate()``: an evaluation from Python, stored like any other, its results as values.

Keywords are the CLI's flags, taken typed by the same validator (``validate``: the same rules),
so a bad one raises InputError with the CLI's words after its keyword (``attempts: must be at
least 1, got 0``). The library prints nothing: warnings go through ``warnings``, progress to
the optional callback.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from passk_tui.api.agent_list import list_texts, version_text
from passk_tui.api.cases import Case, written_cases
from passk_tui.api.made import Made, made
from passk_tui.api.results import Result
from passk_tui.api.running import blocking, run_stoppable
from passk_tui.api.stack import Stack
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.schema import BY_NAME, FIELDS, Origin, Resume
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.core.run.engine import Status
from passk_tui.core.run.events import AttemptFinished, Event
from passk_tui.core.text.mentions import type_name
from passk_tui.evaluations.cost_settings import PriceProblem
from passk_tui.evaluations.pairing import pair_status
from passk_tui.evaluations.recorded import RecordedEvaluation, TargetFactory
from passk_tui.evaluations.settings_text import validate
from passk_tui.store import Store

#: A local agent's name, a stack's agent, or a Python callable taking the case's input.
Agent = Callable[..., Any] | str | Stack
#: Called after each attempt lands: (attempts finished, attempts planned).
ProgressCallback = Callable[[int, int], None]
#: Where the cases of a list are written, beside the store.
CASES_FOLDER = "cases"
#: The keywords a resume may give anew, by the Settings field (or price) they set.
RESUMED = {
    f.keyword: f.setting or f.name
    for f in FIELDS
    if f.keyword is not None and f.resume not in (Resume.MEASURED, Resume.NOT_STORED)
}
#: The keywords whose value is the settings' as given (a path, a flag), not parsed from text.
TAKEN_AS_GIVEN = frozenset(word for word in RESUMED if BY_NAME[word].parse is None)
#: ``evaluate``'s keywords that are not settings: how it is called, kept and reported.
NOT_SETTINGS = frozenset({"name", "export", "resume", "store", "progress", "judges"})
#: The settings' keywords ``_plan`` reads apart: the cases (a path or a list of cases), the
#: versions (one or a list), the baseline (not with a callable).
TAKEN_APART = frozenset({"cases", "version", "baseline"})


@dataclass
class _Plan:
    """What the keywords resolved to: the settings (or a resume's changes) and where to keep it."""

    settings: Settings | None
    changes: dict[str, object]
    key: str | None
    target_for: TargetFactory | None
    store: Store
    scratch: Path | None
    baseline: int | None
    targets: list[MatrixTarget] = field(default_factory=list)


async def evaluate_async(
    agent: Agent | Sequence[Agent],
    /,
    *,
    cases: str | os.PathLike[str] | Sequence[Case | Mapping[str, Any]] | None = None,
    attempts: int | None = None,
    k: int | None = None,
    name: str | None = None,
    version: int | str | Sequence[int] | None = None,
    require: float | Fraction | str | None = None,
    confidence: float | None = None,
    family_wise: bool = False,
    max_attempts: int | None = None,
    precision: float | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    completion_only: bool = False,
    budget_runs: int | None = None,
    budget_cost: float | Fraction | str | None = None,
    budget_errors: int | None = None,
    price_in: float | Fraction | str | None = None,
    price_out: float | Fraction | str | None = None,
    agents: str | os.PathLike[str] | None = None,
    judges: Mapping[str, Callable[..., Any]] | None = None,
    export: str | os.PathLike[str] | None = None,
    baseline: int | str | None = None,
    resume: str | None = None,
    store: bool = True,
    progress: ProgressCallback | None = None,
) -> Result:
    """Evaluate ``agent`` on ``cases``; the keywords are the CLI's flags (docs/python.md).

    ``agent`` is a callable (sync or async) called with each case's input, whose return is the
    answer and whose exception makes the attempt errored; it may take ``case``, ``attempt`` and
    ``evaluation`` by keyword. Or a local agent's name (``agents`` names its file), or a
    ``Stack``. ``name`` and ``version`` say how a callable's evaluation is stored (default its
    ``__name__`` and 0). ``resume`` continues a stored evaluation (an id or ``last``);
    ``baseline`` runs another version of a local or stack agent beside it (``result.baseline``,
    ``result.comparison()``). A list of agents, or of versions (``version=[1, 2, 3]``), is a
    matrix: every target runs in one pool and ``result.targets`` holds each one's Result.
    ``judges`` names Python callables that a `judge` check may
    name as its ``agent``: each is called with the judge's prompt and returns its text, which
    ends with ``VERDICT: PASS`` or ``VERDICT: FAIL`` (any other judge comes from ``agents``).

    A deadline (``timeout``) holds whatever a callable does: the attempt is ``timed_out`` at
    it; a sync agent's thread, which nothing can stop, is left to end on its own as a daemon
    thread (it never keeps Python from exiting); a coroutine that ignores its cancellation is
    not waited for. Whatever the agent raises, ``SystemExit`` included, errs its attempt;
    only the caller's own Ctrl-C stops the evaluation (``targets/callable.py``).
    """
    passed = locals()  # the keywords as given: each a field of the schema, by its keyword
    given: dict[str, object] = {
        f.name: _path_text(passed[f.keyword])
        for f in FIELDS
        if f.keyword is not None and f.keyword not in TAKEN_APART
    }
    plan = _plan(agent, cases, name, version, given, resume, store, baseline)
    try:
        export_path = _export_path(export, paired=baseline is not None, matrix=bool(plan.targets))
    except InputError:
        plan.store.close()
        raise
    making: Made | None = None
    try:
        listener = _Listener(progress)
        making = made(
            plan.settings,
            plan.changes,
            plan.key,
            plan.target_for,
            plan.store,
            resume=resume,
            baseline=plan.baseline,
            on_event=listener,
            targets=plan.targets,
            judges=_judges(judges),
        )
        listener.watch(making.evaluations)
        for warning in making.warnings:
            warnings.warn(warning, stacklevel=3)
        status: Status = "done"
        if not making.shown_only:
            status = pair_status(await run_stoppable(making.running))
        if status == "failed":
            raise RunError(making.error)
        result = making.result(status, stored=plan.scratch is None)
        if export_path is not None:
            _export(making, plan.store, export_path)
        return result
    except PriceProblem as exc:  # a local version's own price, read once the target is known
        raise InputError(exc.worded(Origin.API)) from None
    finally:
        # A notebook calls again and again: no claim (a shown-only resume ran nothing to
        # release it) and no connection is left open.
        for evaluation in making.evaluations if making is not None else ():
            evaluation.release()
        plan.store.close()
        if plan.scratch is not None:
            shutil.rmtree(plan.scratch, ignore_errors=True)


evaluate = blocking(evaluate_async)
evaluate.__name__ = evaluate.__qualname__ = "evaluate"
evaluate.__doc__ = (evaluate_async.__doc__ or "") + (
    "\n\n    ``evaluate`` waits for the result; ``evaluate_async`` is the same inside a running loop."
)


def _plan(
    agent: Agent | Sequence[Agent],
    cases: object,
    name: str | None,
    version: int | str | Sequence[int] | None,
    given: dict[str, object],
    resume: str | None,
    store: bool,
    baseline: int | str | None,
) -> _Plan:
    """Validate every keyword (nothing runs); InputError says the first problem in one line."""
    texts: dict[str, object] = dict(given)  # typed: the validator takes them as they are
    texts["version"] = version_text(version)
    if isinstance(agent, list | tuple):
        target_for = list_texts(agent, name, texts)
    else:
        target_for = _agent(agent, name, texts)
    if baseline is not None:
        if target_for is not None:
            raise InputError(
                "baseline: a Python callable has no other version to run beside it; "
                "evaluate each and compare them (passk-tui compare A B)"
            )
        texts["baseline"] = baseline
    scratch = None if store else Path(tempfile.mkdtemp(prefix="passk-"))
    opened: Store | None = None
    try:
        opened = Store.open(scratch / "passk.db" if scratch else None)
        if resume is None:
            folder = opened.path.parent / CASES_FOLDER
            texts["cases"] = _cases_text(cases, folder, bool(texts["completion_only"]))
        # A resume keeps its gate: --family-wise alone is its promise again, not bad input.
        checked = texts if resume is None else {**texts, "family_wise": None}
        check = validate(checked, Origin.API, demo=resume is not None)
        line = check.first_line()
        if line is not None:
            raise InputError(line)
    except BaseException:
        if opened is not None:
            opened.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    key, paired = check.key, check.baseline
    if resume is None:
        return _Plan(check.settings, {}, key, target_for, opened, scratch, paired, check.targets)
    changes = {
        field: texts[word] if word in TAKEN_AS_GIVEN else check.values[word]
        for word, field in RESUMED.items()
        if texts.get(word) not in (None, False)  # an unticked switch is not given
    }
    return _Plan(None, changes, key, target_for, opened, scratch, paired)


def _path_text(value: object) -> object:
    """A path keyword (``agents=Path(...)``) as its text; any other value as given."""
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _agent(agent: object, name: str | None, texts: dict[str, object]) -> TargetFactory | None:
    """Fill the agent's fields of ``texts`` (a stack's key too); a callable's target factory
    (anything else is said to be no agent)."""
    if isinstance(agent, Stack):
        _same_name(name, agent.agent_id, "a stack agent")
        texts.update(agent=agent.agent_id, stack=agent.url)
        texts["key"] = agent.key or os.environ.get("PASSK_KEY") or None
        return None
    if isinstance(agent, str):
        _same_name(name, agent, "a local agent")
        texts["agent"] = agent
        return None
    if not callable(agent):
        raise InputError(
            f"agent: a Python callable, a local agent's name or passk_tui.Stack(...), "
            f"got {type_name(agent)}"
        )
    from passk_tui.targets.callable import CallableTarget

    texts["agent"] = name or getattr(agent, "__name__", None) or type(agent).__name__
    texts["version"] = texts["version"] or "0"

    def target_for(evaluation_id: str, settings: Settings) -> CallableTarget:
        return CallableTarget(agent, evaluation_id, settings.timeout)

    return target_for


def _judges(judges: object) -> dict[str, Callable[..., Any]] | None:
    """The judges by name, checked: a mapping of names to callables (InputError otherwise)."""
    if judges is None:
        return None
    if not isinstance(judges, Mapping):
        raise InputError(f"judges: a mapping of names to callables, got {type_name(judges)}")
    for judge_name, judge in judges.items():
        if not isinstance(judge_name, str) or not callable(judge):
            raise InputError(f"judges: {judge_name!r} must name a callable, got {type_name(judge)}")
    return dict(judges)


def _same_name(name: str | None, agent: str, what: str) -> None:
    if name is not None and name != agent:
        raise InputError(f"name: {what} is stored under its own name ({agent!r}), not {name!r}")


def _cases_text(cases: object, folder: Path, completion_only: bool) -> str | None:
    """The cases file's path as text: ``cases`` itself, or a list of cases written to ``folder``."""
    if cases is None:
        return None
    if isinstance(cases, str | os.PathLike):
        return os.fspath(cases)
    if isinstance(cases, Sequence) and not isinstance(cases, bytes):
        return str(written_cases(list(cases), folder, completion_only))
    raise InputError(f"cases: a path or a list of passk_tui.Case, got {type_name(cases)}")


class _Listener:
    """The engine's events as (finished, planned) calls to the user's ``progress``, one per
    attempt (the engine lands them in batches: its count is already the batch's end)."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.evaluations: list[RecordedEvaluation] = []
        self.finished = 0

    def watch(self, evaluations: Sequence[RecordedEvaluation]) -> None:
        self.evaluations = list(evaluations)
        self.finished = sum(e.progress.finished for e in evaluations)  # a resume's, already in

    def __call__(self, event: Event) -> None:
        if self.progress is not None and self.evaluations and isinstance(event, AttemptFinished):
            self.finished += 1
            self.progress(self.finished, sum(e.progress.total for e in self.evaluations))


def _export_path(
    export: str | os.PathLike[str] | None, *, paired: bool, matrix: bool
) -> Path | None:
    """The export's path, checked before anything runs (its suffix names the format; with a
    baseline, the comparison's formats; for a matrix, its own)."""
    if export is None:
        return None
    if matrix:
        from passk_tui.reports.matrix_export import check_matrix_export

        return check_matrix_export(os.fspath(export))
    if paired:
        from passk_tui.reports.compare_export import check_comparison_export

        return check_comparison_export(os.fspath(export))
    from passk_tui.reports.export import check_export_path

    return check_export_path(os.fspath(export))


def _export(making: Made, store: Store, path: Path) -> None:
    """Write the export as the CLI does: the evaluation's, or with a baseline the comparison's."""
    settings = making.evaluations[-1].settings
    if making.matrix is not None:
        from passk_tui.reports.matrix_export import export_matrix

        export_matrix(making.matrix_reading(), path)
        return
    if making.paired is not None:
        from passk_tui.reports.compare_export import export_comparison

        export_comparison(making.paired.compared(making.level), path)
        return
    from passk_tui.reports.export import export

    export(store.load(making.evaluations[-1].evaluation_id), path, settings.confidence)
