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

import asyncio
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from passk_tui.api.cases import Case, written_cases
from passk_tui.api.running import run_stoppable
from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.agent_definition import python_definition
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.render.table import plain_table
from passk_tui.core.run.attempt_keys import new_evaluation_id
from passk_tui.core.run.cases import cases_of_rows, load_cases
from passk_tui.core.run.engine import Evaluation, Interleaved
from passk_tui.core.run.events import AttemptFinished, Event
from passk_tui.core.run.sampling import reading, sampling_policy
from passk_tui.core.stats.gating.gate import gate_lines
from passk_tui.core.stats.progress import Progress
from passk_tui.evaluations.recorded import file_sha256
from passk_tui.evaluations.settings_text import check_settings
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
#: What a marked test runs with unless its marker says otherwise (attempts one at a time:
#: a test body is seldom written to run beside itself).
DEFAULTS = {"concurrency": "1"}
#: How a bad agent or version is named: by the option that gave it.
SOURCES = {"agent": "--passk-agent", "version": "--passk-version"}
#: The definition every session's evaluation records: what ran is the test suite.
DEFINITION = python_definition("pytest")


@dataclass
class MarkedTest:
    """One marked test as measured: its settings and its finished attempts."""

    name: str
    settings: Settings
    records: list[AttemptRecord]


class MarkedTests:
    """Every marked test of one pytest session (or xdist worker), stored together at its end."""

    def __init__(self, config: pytest.Config, export: Path | None) -> None:
        self.config = config
        self.evaluation_id = new_evaluation_id()
        self.agent = str(config.getoption("passk_agent") or config.rootpath.name)
        self.version = str(config.getoption("passk_version") or "0")
        #: ``--passk-export``, checked when pytest started (``pytest_plugin.pytest_configure``).
        self.export = export
        self.tests: list[MarkedTest] = []
        #: How the stored evaluation ends: ``cancelled`` when Ctrl-C stopped a marked test.
        self.status = "done"
        #: The summary's lines once stored (the table, where it is), or what went wrong.
        self.lines: list[str] = []

    def run(
        self, item: pytest.Function, args: tuple[Any, ...], keywords: Mapping[str, Any]
    ) -> None:
        """Run the test's attempts; fail it (pytest.fail) when its gate fails or is undecided."""
        settings = self._settings(args, keywords)
        (case,) = cases_of_rows(
            [("marker", {"name": item.nodeid, "input": item.nodeid, "check": CHECK})],
            item.nodeid,
            item.path.parent,
        )
        records: list[AttemptRecord] = []

        def keep(event: Event) -> None:
            if isinstance(event, AttemptFinished):
                records.append(event.record)

        target = CallableTarget(body_of(item), self.evaluation_id, settings.concurrency)
        evaluation = Evaluation(
            self.evaluation_id,
            [case],
            settings,
            target,
            on_event=keep,
            policy=sampling_policy(settings, 1),
        )
        self.tests.append(MarkedTest(item.nodeid, settings, records))  # kept if interrupted
        try:
            asyncio.run(run_stoppable(Interleaved([evaluation])))
        except KeyboardInterrupt:
            self.status = "cancelled"  # what finished is stored; the rest is not measured
            raise
        read = reading(evaluation.progress.all_figures(), settings)
        if read.exit_code:
            said = gate_lines(read)
            shown = read if settings.confidence is not None else None
            table = plain_table(evaluation.progress.all_figures(), settings.k, shown)
            pytest.fail("\n".join([*said, table.rstrip("\n")]), pytrace=False)

    def _settings(self, args: tuple[Any, ...], keywords: Mapping[str, Any]) -> Settings:
        """The marker's keywords through the one validator; a bad one fails the test in one line."""
        unknown = [word for word in keywords if word not in KEYWORDS]
        if args or unknown:
            what = f"unknown keyword {unknown[0]!r}" if unknown else "keywords only"
            pytest.fail(f"passk: {what} (takes {', '.join(KEYWORDS)})", pytrace=False)
        texts: dict[str, str | bool | None] = {**DEFAULTS, "cases": "pytest"}
        texts.update({word: None if v is None else str(v) for word, v in keywords.items()})
        texts.update(agent=self.agent, version=self.version)
        check = check_settings(texts, sources=SOURCES)
        line = check.first_line()
        if line is not None:
            pytest.fail(f"passk: {line}", pytrace=False)
        assert check.settings is not None
        return check.settings

    def finish(self) -> None:
        """Store every marked test as one evaluation, and export it when asked."""
        if not self.tests or self.lines:
            return
        try:
            self.lines = self._stored()
        except (InputError, RunError) as exc:
            self.lines = [f"passk: the marked tests were not stored: {exc}"]

    def _stored(self) -> list[str]:
        store = Store.open()
        try:
            return self._stored_in(store)
        finally:
            store.close()

    def _stored_in(self, store: Store) -> list[str]:
        folder = store.path.parent / "cases"
        path = written_cases([Case(t.name, t.name, CHECK) for t in self.tests], folder, False)
        cases = load_cases(path)
        settings = self._shared_settings(path)
        records = [
            replace(record, case_index=index)
            for index, test in enumerate(self.tests)
            for record in test.records
        ]
        store.create_evaluation(
            self.evaluation_id, settings, cases, file_sha256(path), definition=DEFINITION
        )
        store.write(self.evaluation_id, records)
        store.finish(self.evaluation_id, self.status)
        progress = Progress([t.name for t in self.tests], settings.attempts, settings.k)
        progress.add(records)
        figures = progress.all_figures()
        read = reading(figures, settings)
        shown = read if settings.confidence is not None else None
        lines = plain_table(figures, settings.k, shown).rstrip("\n").split("\n")
        lines.append(
            f"stored as evaluation {self.evaluation_id} ({self.agent} v{settings.version}): "
            f"passk-tui --resume {self.evaluation_id} shows it"
        )
        if self.export:
            from passk_tui.reports.export import export

            written = export(store.load(self.evaluation_id), self.export, settings.confidence)
            lines.append(f"wrote {written}")
        return lines

    def _shared_settings(self, path: Path) -> Settings:
        """One Settings for tests that may differ: the fewest attempts and the smallest k (so
        every row is defined), and a gate, level or cap only when every test has the same."""
        each = [t.settings for t in self.tests]
        first = each[0]

        def common(name: str) -> Any:
            value = getattr(first, name)
            return value if all(getattr(s, name) == value for s in each) else None

        cap = common("max_attempts")
        return replace(
            first,
            cases_path=str(path),
            attempts=min(s.attempts for s in each),
            k=min(s.k for s in each),
            concurrency=max(s.concurrency for s in each),
            timeout=max(s.timeout for s in each),
            require=common("require"),
            confidence=common("confidence"),
            max_attempts=cap,
            precision=common("precision") if cap is not None else None,
        )

    def summary(self) -> list[str]:
        """The lines the terminal summary shows (the table, where it is stored)."""
        self.finish()
        return self.lines


def body_of(item: pytest.Function) -> Callable[..., Any]:
    """The test's body as an agent: ``passed`` when it returns, the assertion as a wrong answer."""
    function = item.obj
    arguments = {name: item.funcargs[name] for name in item._fixtureinfo.argnames}

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
