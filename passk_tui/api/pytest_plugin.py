"""``@pytest.mark.passk``: a test's body run once per attempt, the test passing by its gate.

Registered for every pytest session once passk-tui is installed (the ``pytest11`` entry
point), so this module imports nothing but pytest: the engine, the store and the statistics
are loaded by the first marked test (``api/pytest_session.py``). A session that marks no test
gets three options and a marker, and nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from passk_tui.api.pytest_session import MarkedTests

#: The session's marked tests, once the first one runs.
MARKED: pytest.StashKey[MarkedTests] = pytest.StashKey()

#: ``--passk-export``'s path, checked.
EXPORT: pytest.StashKey[Path] = pytest.StashKey()
#: The workers' summaries, on xdist's controller.
WORKERS: pytest.StashKey[list[list[str]]] = pytest.StashKey()

MARKER = (
    "passk(attempts=5, k=3, require=None, confidence=None, concurrency=1, timeout=300): "
    "run the test's body once per attempt (AssertionError: wrong, any other exception: "
    "errored) and pass or fail it by its gate (passk-tui)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("passk", "passk-tui (tests marked @pytest.mark.passk)")
    group.addoption(
        "--passk-export",
        metavar="PATH",
        help="also write the marked tests' evaluation (.json .csv .md .xml .html)",
    )
    group.addoption(
        "--passk-agent",
        metavar="NAME",
        help="the agent the marked tests' evaluation is stored as (default: the project folder)",
    )
    group.addoption(
        "--passk-version",
        metavar="N",
        help="the version it is stored as (an integer, default 0)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    export = config.getoption("passk_export")
    if export:
        # Checked before any test runs (its folder, its suffix), relative to where pytest
        # started whatever folder a test moves to: reports/ is loaded only when asked for.
        from passk_tui.core.errors import InputError
        from passk_tui.reports.export import check_export_path

        try:
            config.stash[EXPORT] = check_export_path(str(config.invocation_params.dir / export))
        except InputError as exc:
            raise pytest.UsageError(f"--passk-export: {exc}") from None


@pytest.fixture
def passk_messages() -> list[dict[str, Any]]:
    """In a test marked with ``turns``: the conversation so far (``{"role", "content"}``
    each, the user's messages and the replies the body returned), given anew at each turn."""
    return []


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """A marked test's call: its attempts, then its gate; any other test is left to pytest."""
    marker = pyfuncitem.get_closest_marker("passk")
    if marker is None:
        return None
    from passk_tui.api.pytest_session import MarkedTests

    marked = pyfuncitem.config.stash.get(MARKED, None)
    if marked is None:
        config = pyfuncitem.config
        marked = config.stash[MARKED] = MarkedTests(config, config.stash.get(EXPORT, None))
    marked.run(pyfuncitem, marker.args, marker.kwargs)
    return True


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Store what the marked tests measured as one evaluation (a worker of xdist: its own)."""
    marked = session.config.stash.get(MARKED, None)
    if marked is not None:
        marked.finish()
        workeroutput: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput["passk"] = marked.summary()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist's controller: keep each worker's summary for the terminal (workers print none)."""
    summary = getattr(node, "workeroutput", {}).get("passk")
    if summary:
        node.config.stash.setdefault(WORKERS, []).append(summary)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The plain table of the marked tests, one row per test id, and where it is stored."""
    marked = config.stash.get(MARKED, None)
    summaries = [marked.summary()] if marked is not None else []
    workers: list[list[str]] = config.stash.get(WORKERS, [])
    summaries += workers
    for lines in summaries:
        terminalreporter.section("passk")
        for line in lines:
            terminalreporter.write_line(line)
