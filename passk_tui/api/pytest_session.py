"""What the pytest plugin does once a marked test runs: its attempts, its gate, one stored evaluation.

Each marked test is one case named by its test id. Its body is the agent: returning is
``passed``, an AssertionError (or ``pytest.fail``) ``wrong``, any other exception ``errored``.
Fixtures are set up once per test, as pytest sets them up, and every attempt gets the same
values: a fixture that must be fresh per attempt belongs in the body. The test passes or fails
by its own gate, read by ``core/stats`` as every face reads it. At the session's end all its
marked tests are stored as one evaluation (an xdist worker stores its own), so History,
``--resume`` and ``compare`` show them like any other.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from passk_tui.api.cases import Case, written_cases
from passk_tui.api.pytest_store import SessionStore
from passk_tui.api.running import run_stoppable, run_to_end
from passk_tui.core.attempt import Vote
from passk_tui.core.checks.panel import Judged, JudgeName, Judges
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import python_definition
from passk_tui.core.inputs.file_digests import sha256_of
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.core.render.table import plain_table
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case as CoreCase
from passk_tui.core.run.cases import cases_of_rows
from passk_tui.core.run.engine import Evaluation, Interleaved
from passk_tui.core.run.sampling import reading, sampling_policy
from passk_tui.core.text.figure_text import how_read
from passk_tui.core.text.mentions import type_name
from passk_tui.evaluations.judging import StoredJudges, judges_for
from passk_tui.evaluations.settings_text import validate
from passk_tui.store import Store
from passk_tui.targets.callable import CallableTarget, is_async

#: The answer of an attempt whose body returned, and the check that passes it.
PASSED = "passed"
CHECK = {"equals": PASSED}
#: The marker's keywords: the CLI's flags that say how one test is measured.
KEYWORDS = (
    "attempts",
    "k",
    "require",
    "confidence",
    "max_attempts",
    "precision",
    "concurrency",
    "timeout",
)
#: The marker's keywords for a judged test: ``judge``, the check table of a `judge` check (the
#: body's return is the answer it judges), ``judges``, Python callables that judge by name,
#: and ``input``, what the judge is told the agent was given (default: the test's id).
JUDGE_KEYWORDS = ("judge", "judges", "input")
#: The marker's keywords for a conversation: ``turns``, the user's messages played in order
#: in each attempt (the body is called once a turn, the conversation so far in its
#: ``passk_messages`` fixture, and returns the reply), and ``check``, the check table the last
#: reply must pass. Each attempt's transcript is kept, as a run's is.
CONVERSATION_KEYWORDS = ("turns", "check")
#: The fixture a conversation's body reads the messages so far from.
MESSAGES = "passk_messages"
#: What a marked test runs with unless its marker says otherwise (attempts one at a time:
#: a test body is seldom written to run beside itself).
DEFAULTS = {"concurrency": "1"}
#: How a bad agent or version is named: by the option that gave it.
SOURCES = {"agent": "--passk-agent", "version": "--passk-version"}
#: The definition every session's evaluation records: what ran is the test suite.
DEFINITION = python_definition("pytest")


@dataclass
class MarkedTest:
    """One marked test as measured: its settings and its run (its stored attempts included)."""

    name: str
    settings: Settings
    evaluation: Evaluation

    def read(self) -> EvaluationReading:
        """The test read as its marker says (its k, its gate, its level): what pytest decided."""
        return EvaluationReading(self.name, self.settings, self.evaluation.progress)


class MarkedTests:
    """Every marked test of one pytest session (or xdist worker), kept in one evaluation as
    its attempts finish (``api/pytest_store.py``)."""

    def __init__(self, config: pytest.Config, export: Path | None) -> None:
        self.config = config
        self.agent = str(config.getoption("passk_agent") or config.rootpath.name)
        self.version = str(config.getoption("passk_version") or "0")
        #: ``--passk-export``, checked when pytest started (``pytest_plugin.pytest_configure``).
        self.export = export
        self.tests: list[MarkedTest] = []
        #: How the stored evaluation ends: ``cancelled`` when Ctrl-C stopped a marked test.
        self.status = "done"
        #: The summary's lines once stored (the table, where it is), or what went wrong.
        self.lines: list[str] = []
        self._kept: SessionStore | None = None

    def run(
        self, item: pytest.Function, args: tuple[Any, ...], keywords: Mapping[str, Any]
    ) -> None:
        """Run the test's attempts; fail it (pytest.fail) when its gate fails or is undecided."""
        judged = "judge" in keywords
        settings = self._settings(args, keywords)
        if "turns" in keywords:  # a conversation: the body's replies are the answers
            check = keywords.get("check", keywords.get("judge", CHECK))
            row = {"name": item.nodeid, "turns": keywords["turns"], "check": check}
        else:
            row = {
                "name": item.nodeid,
                "input": keywords.get("input", item.nodeid),
                "check": keywords["judge"] if judged else CHECK,
            }
        answers = judged or "turns" in keywords
        try:
            (case,) = cases_of_rows([("marker", row)], item.nodeid, item.path.parent)
        except InputError as exc:
            pytest.fail(f"passk: {exc}", pytrace=False)
        try:
            kept = self._session_store(item.session)
            index, stored = kept.case(case)
        except (InputError, RunError) as exc:
            pytest.fail(f"passk: the marked tests cannot be stored: {exc}", pytrace=False)
        previous = [replace(record, case_index=0) for record in stored]
        target = CallableTarget(body_of(item, answers), kept.evaluation_id, settings.timeout)
        evaluation = Evaluation(
            kept.evaluation_id,
            [case],
            settings,
            target,
            sink=kept.sink(index),
            previous=previous,
            policy=sampling_policy(settings, 1, previous),
        )
        if judged:
            try:
                evaluation.judges = test_judges(case, settings, kept, index, keywords.get("judges"))
            except InputError as exc:
                pytest.fail(f"passk: {exc}", pytrace=False)
        test = MarkedTest(item.nodeid, settings, evaluation)
        self.tests.append(test)  # kept if interrupted
        try:
            run_to_end(lambda: run_stoppable(Interleaved([evaluation])))
        except KeyboardInterrupt:
            self.status = "cancelled"  # what finished is stored; the rest is not measured
            raise
        if evaluation.status == "failed":
            pytest.fail(f"passk: {evaluation.error}", pytrace=False)
        read = test.read()
        if read.exit_code:
            pytest.fail("\n".join([*read.gate_lines(), read.table().rstrip("\n")]), pytrace=False)

    def _session_store(self, session: pytest.Session) -> SessionStore:
        """The session's evaluation, made (or an unfinished one continued) at its first marked
        test, with the settings of every marked test it collected."""
        if self._kept is None:
            planned = [i for i in session.items if i.get_closest_marker("passk") is not None]
            each = [self._marker_settings(i) for i in planned]
            names = [i.nodeid for i, s in zip(planned, each, strict=True) if s is not None]
            store = Store.open()
            try:
                path = written_cases(
                    [Case(name, name, CHECK) for name in names], store.path.parent / "cases", False
                )
            finally:
                store.close()
            settings = shared_settings([s for s in each if s is not None], str(path))
            self._kept = SessionStore(settings, sha256_of(path), DEFINITION)
        return self._kept

    def _marker_settings(self, item: pytest.Item) -> Settings | None:
        """A marked test's settings, or None when its marker is bad (its run fails it)."""
        marker = item.get_closest_marker("passk")
        assert marker is not None
        try:
            return self._settings(marker.args, marker.kwargs)
        except pytest.fail.Exception:
            return None

    def _settings(self, args: tuple[Any, ...], keywords: Mapping[str, Any]) -> Settings:
        """The marker's keywords through the one validator; a bad one fails the test in one line."""
        keywords = {
            w: v for w, v in keywords.items() if w not in (*JUDGE_KEYWORDS, *CONVERSATION_KEYWORDS)
        }
        unknown = [word for word in keywords if word not in KEYWORDS]
        if args or unknown:
            what = f"unknown keyword {unknown[0]!r}" if unknown else "keywords only"
            pytest.fail(f"passk: {what} (takes {', '.join(KEYWORDS)})", pytrace=False)
        texts: dict[str, str | bool | None] = {**DEFAULTS, "cases": "pytest"}
        texts.update({word: None if v is None else str(v) for word, v in keywords.items()})
        texts.update(agent=self.agent, version=self.version)
        check = validate(texts, sources=SOURCES)
        line = check.first_line()
        if line is not None:
            pytest.fail(f"passk: {line}", pytrace=False)
        assert check.settings is not None
        return check.settings

    def finish(self) -> None:
        """End the session's evaluation (its attempts are in already), and export it when asked."""
        if self._kept is None or self.lines:
            return
        try:
            self.lines = self._stored(self._kept)
        except (InputError, RunError) as exc:
            self.lines = [f"passk: the marked tests were not stored: {exc}"]

    def _stored(self, kept: SessionStore) -> list[str]:
        stored = kept.close(self.status)
        lines = self._tables()
        lines.append(
            f"stored as evaluation {stored.id} ({self.agent} v{stored.settings.version}): "
            f"passk-tui --resume {stored.id} shows it"
        )
        if self.export:
            from passk_tui.api.pytest_report import session_report
            from passk_tui.reports.export import export

            report = session_report(stored, {t.name: t.read().reading for t in self.tests})
            lines.append(f"wrote {export(report, self.export)}")
        return lines

    def _tables(self) -> list[str]:
        """The plain table of the tests that ran, one per way of reading them (k and gate):
        each test's row under its own pass@k, with its own interval and verdict where its
        marker asks for a confident gate, as the CLI shows them."""
        groups: dict[tuple[object, ...], list[MarkedTest]] = {}
        for test in self.tests:
            s = test.settings
            groups.setdefault((s.k, s.require, s.confidence), []).append(test)
        lines: list[str] = []
        for tests in groups.values():
            settings = tests[0].settings
            figures = [f for t in tests for f in t.evaluation.progress.all_figures()]
            read = reading(figures, settings)
            shown = read if settings.confidence is not None else None
            if len(groups) > 1:
                lines.append(f"{how_read(settings.k, settings.require, settings.confidence)}:")
            lines += plain_table(figures, settings.k, shown).rstrip("\n").split("\n")
        return lines

    def summary(self) -> list[str]:
        """The lines the terminal summary shows (the table, where it is stored)."""
        self.finish()
        return self.lines


def shared_settings(each: list[Settings], cases_path: str) -> Settings:
    """One Settings for tests that may differ: the fewest attempts and the smallest k (so
    every row is defined), and a gate, level or cap only when every test has the same."""
    first = each[0] if each else validate({"cases": "pytest"}).settings
    assert first is not None

    def common(name: str) -> Any:
        value = getattr(first, name)
        return value if all(getattr(s, name) == value for s in each) else None

    cap = common("max_attempts")
    return replace(
        first,
        cases_path=cases_path,
        attempts=min((s.attempts for s in each), default=first.attempts),
        k=min((s.k for s in each), default=first.k),
        concurrency=max((s.concurrency for s in each), default=first.concurrency),
        timeout=max((s.timeout for s in each), default=first.timeout),
        require=common("require"),
        confidence=common("confidence"),
        max_attempts=cap,
        precision=common("precision") if cap is not None else None,
    )


def body_of(item: pytest.Function, answers: bool = False) -> Callable[..., Any]:
    """The test's body as an agent: ``passed`` when it returns, the assertion as a wrong answer;
    with ``answers`` (a judged test, a conversation) what it returns is the answer, anything
    raised errs it; a conversation's body gets the messages so far as ``passk_messages``."""
    function = item.obj
    arguments = {name: item.funcargs[name] for name in item._fixtureinfo.argnames}
    if answers:
        if MESSAGES in arguments:
            return lambda given: function(**{**arguments, MESSAGES: given})
        return lambda _input: function(**arguments)

    def judged(exc: BaseException) -> str:
        return f"{type(exc).__name__}: {exc}".strip()

    if is_async(function) or inspect.iscoroutinefunction(function):

        async def attempt_async(_input: object) -> str:
            try:
                await function(**arguments)
            except (AssertionError, pytest.fail.Exception) as exc:
                return judged(exc)
            return PASSED

        return attempt_async

    def attempt(_input: object) -> str:
        try:
            function(**arguments)
        except (AssertionError, pytest.fail.Exception) as exc:
            return judged(exc)
        return PASSED

    return attempt


class _CaseJudges:
    """A judged test's judges: its votes kept under its case of the session's evaluation (each
    test runs as case 0 of its own run, as ``CaseSink`` keeps its attempts)."""

    def __init__(self, judges: StoredJudges, index: int) -> None:
        self.judges, self.index = judges, index

    async def prepare(self) -> None:
        await self.judges.prepare()

    async def aclose(self) -> None:
        await self.judges.aclose()

    async def vote(
        self, attempt: Judged, judge: JudgeName, prompt: str, digest: str, run: int
    ) -> Vote:
        assert isinstance(attempt, PlannedAttempt)
        placed = replace(attempt, case_index=self.index)
        return await self.judges.vote(placed, judge, prompt, digest, run)


def test_judges(
    case: CoreCase, settings: Settings, kept: SessionStore, index: int, callables: object
) -> Judges | None:
    """The judges a judged test names: its ``judges`` callables, else the agents file's."""
    if callables is not None and not isinstance(callables, Mapping):
        raise InputError(f"judges: a mapping of names to callables, got {type_name(callables)}")
    judges = judges_for([case], settings, kept.store, kept.evaluation_id, callables)
    return None if judges is None else _CaseJudges(judges, index)
