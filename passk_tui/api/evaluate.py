"""``passk_tui.evaluate()``: an evaluation from Python, stored like any other, its results as values.

Keywords are the CLI's flags and go through the same validator (``check_settings``), so a bad
one raises InputError with the CLI's one line. The library prints nothing: warnings go through
``warnings``, progress to the optional callback.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import tempfile
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from passk_tui.api.cases import Case, written_cases
from passk_tui.api.results import Result
from passk_tui.api.stack import Stack
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.run.engine import Status
from passk_tui.core.run.events import AttemptFinished, Event
from passk_tui.core.run.settings import Settings
from passk_tui.core.text.quoting import type_name
from passk_tui.evaluations.session import (
    RecordedEvaluation,
    TargetFactory,
    new_evaluation,
    resume_evaluation,
)
from passk_tui.evaluations.settings_text import check_settings
from passk_tui.store import Store

#: A local agent's name, a stack's agent, or a Python callable taking the case's input.
Agent = Callable[..., Any] | str | Stack
#: Called after each attempt lands: (attempts finished, attempts planned).
ProgressCallback = Callable[[int, int], None]
#: Where the cases of a list are written, beside the store.
CASES_FOLDER = "cases"
#: The keywords a resume may give anew, by the Settings field they set.
RESUMED = {
    "attempts": "attempts",
    "max_attempts": "max_attempts",
    "require": "require",
    "confidence": "confidence",
    "precision": "precision",
    "concurrency": "concurrency",
    "timeout": "timeout",
    "agents": "agents_path",
}

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class _Plan:
    """What the keywords resolved to: the settings (or a resume's changes) and where to keep it."""

    settings: Settings | None
    changes: dict[str, object]
    key: str | None
    target_for: TargetFactory | None
    store: Store
    scratch: Path | None


async def evaluate_async(
    agent: Agent,
    /,
    *,
    cases: str | os.PathLike[str] | Sequence[Case | Mapping[str, Any]] | None = None,
    attempts: int | None = None,
    k: int | None = None,
    name: str | None = None,
    version: int | str | None = None,
    require: float | str | None = None,
    confidence: float | None = None,
    max_attempts: int | None = None,
    precision: float | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    completion_only: bool = False,
    agents: str | os.PathLike[str] | None = None,
    export: str | os.PathLike[str] | None = None,
    resume: str | None = None,
    store: bool = True,
    progress: ProgressCallback | None = None,
) -> Result:
    """Evaluate ``agent`` on ``cases``; the keywords are the CLI's flags (README, "Use from Python").

    ``agent`` is a callable (sync or async) called with each case's input, whose return is the
    answer and whose exception makes the attempt errored; it may take ``case``, ``attempt`` and
    ``evaluation`` by keyword. Or a local agent's name (``agents`` names its file), or a
    ``Stack``. ``name`` and ``version`` say how a callable's evaluation is stored (default its
    ``__name__`` and 0). ``resume`` continues a stored evaluation (an id or ``last``).
    """
    given: dict[str, object] = {
        "attempts": attempts,
        "k": k,
        "require": require,
        "confidence": confidence,
        "max_attempts": max_attempts,
        "precision": precision,
        "concurrency": concurrency,
        "timeout": timeout,
        "agents": None if agents is None else os.fspath(agents),
        "completion_only": completion_only or None,
    }
    export_path = _export_path(export)
    plan = _plan(agent, cases, name, version, given, resume, store)
    try:
        listener = _Listener(progress)
        evaluation, shown_only, said = _recorded(plan, resume, listener)
        listener.watch(evaluation)
        for warning in said:
            warnings.warn(warning, stacklevel=3)
        status: Status = "done"
        if not shown_only:
            try:
                status = await evaluation.run()
            finally:
                await evaluation.target.aclose()
        if status == "failed":
            raise RunError(evaluation.error or "the evaluation failed")
        result = Result.of(
            evaluation.evaluation_id,
            evaluation.settings,
            evaluation.progress.all_figures(),
            status,
            stored=plan.scratch is None,
        )
        if export_path is not None:
            from passk_tui.reports.export import export as write_export

            stored = plan.store.load(evaluation.evaluation_id)
            write_export(stored, export_path, evaluation.settings.confidence)
        return result
    finally:
        if plan.scratch is not None:
            plan.store.close()
            shutil.rmtree(plan.scratch, ignore_errors=True)


def _blocking(coroutine_function: Callable[P, Awaitable[R]]) -> Callable[P, R]:
    """The same call, waited for: on a fresh loop, or in a thread of its own when this thread
    already runs one (a notebook's), since a loop cannot wait on itself."""

    @functools.wraps(coroutine_function)
    def wait(*args: P.args, **kwargs: P.kwargs) -> R:
        async def call() -> R:
            return await coroutine_function(*args, **kwargs)

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(call())
        with ThreadPoolExecutor(1, thread_name_prefix="passk-evaluate") as thread:
            return thread.submit(asyncio.run, call()).result()

    return wait


evaluate = _blocking(evaluate_async)
evaluate.__name__ = evaluate.__qualname__ = "evaluate"
evaluate.__doc__ = (evaluate_async.__doc__ or "") + (
    "\n\n    ``evaluate`` waits for the result; ``evaluate_async`` is the same inside a running loop."
)


def _plan(
    agent: Agent,
    cases: object,
    name: str | None,
    version: int | str | None,
    given: dict[str, object],
    resume: str | None,
    store: bool,
) -> _Plan:
    """Validate every keyword (nothing runs); InputError says the first problem in one line."""
    texts: dict[str, str | bool | None] = {
        word: value if isinstance(value, bool) or value is None else str(value)
        for word, value in given.items()
    }
    target_for, key = _agent(agent, name, version, texts)
    scratch = None if store else Path(tempfile.mkdtemp(prefix="passk-"))
    opened: Store | None = None
    try:
        opened = Store.open(scratch / "passk.db" if scratch else None)
        if resume is None:
            folder = opened.path.parent / CASES_FOLDER
            texts["cases"] = _cases_text(cases, folder, bool(texts["completion_only"]))
        check = check_settings(texts, demo=resume is not None)
        line = check.first_line()
        if line is not None:
            raise InputError(line)
    except BaseException:
        if opened is not None and scratch is not None:
            opened.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    key = key if check.key is None else check.key
    if resume is None:
        return _Plan(check.settings, {}, key, target_for, opened, scratch)
    changes = {
        field: texts[word] if word == "agents" else check.values[word]
        for word, field in RESUMED.items()
        if texts.get(word) is not None
    }
    return _Plan(None, changes, key, target_for, opened, scratch)


def _agent(
    agent: Agent, name: str | None, version: int | str | None, texts: dict[str, str | bool | None]
) -> tuple[TargetFactory | None, str | None]:
    """Fill the agent's fields of ``texts``; the target factory of a callable, and the key."""
    texts["version"] = None if version is None else str(version)
    if isinstance(agent, Stack):
        _same_name(name, agent.agent_id, "a stack agent")
        texts.update(agent=agent.agent_id, stack=agent.url)
        texts["key"] = agent.key or os.environ.get("PASSK_KEY") or None
        return None, None
    if isinstance(agent, str):
        _same_name(name, agent, "a local agent")
        texts["agent"] = agent
        return None, None
    if not callable(agent):
        raise InputError(
            f"agent: a Python callable, a local agent's name or passk_tui.Stack(...), "
            f"got {type_name(agent)}"
        )
    from passk_tui.targets.callable import CallableTarget

    texts["agent"] = name or getattr(agent, "__name__", None) or type(agent).__name__
    texts["version"] = texts["version"] or "0"

    def target_for(evaluation_id: str, settings: Settings) -> CallableTarget:
        return CallableTarget(agent, evaluation_id, settings.concurrency)

    return target_for, None


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


def _recorded(
    plan: _Plan, resume: str | None, on_event: Callable[[Event], None]
) -> tuple[RecordedEvaluation, bool, list[str]]:
    """The evaluation made (or resumed) and kept in the store; whether it is only shown; what
    it warns of."""
    if resume is None:
        assert plan.settings is not None
        made = new_evaluation(
            plan.settings, plan.key, on_event, store=plan.store, target_for=plan.target_for
        )
        return made, False, made.warnings
    resumed = resume_evaluation(
        resume, plan.key, plan.changes, on_event, store=plan.store, target_for=plan.target_for
    )
    return resumed.evaluation, resumed.shown_only, resumed.warnings


class _Listener:
    """The engine's events as (finished, planned) calls to the user's ``progress``, one per
    attempt (the engine lands them in batches: its count is already the batch's end)."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.evaluation: RecordedEvaluation | None = None
        self.finished = 0

    def watch(self, evaluation: RecordedEvaluation) -> None:
        self.evaluation = evaluation
        self.finished = evaluation.progress.finished  # a resume's attempts already in

    def __call__(self, event: Event) -> None:
        watched = self.evaluation
        if self.progress is not None and watched is not None and isinstance(event, AttemptFinished):
            self.finished += 1
            self.progress(self.finished, watched.progress.total)


def _export_path(export: str | os.PathLike[str] | None) -> Path | None:
    """The export's path, checked before anything runs (its suffix names the format)."""
    if export is None:
        return None
    from passk_tui.reports.export import check_export_path

    return check_export_path(os.fspath(export))
