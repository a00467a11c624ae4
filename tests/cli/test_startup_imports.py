"""A plain headless run and --help import only what they use: no app, no report module, no comparison."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support import CLI_AGENTS
from tests.support.stack_server import StackServer

AGENTS = CLI_AGENTS

#: Modules a headless run that writes no export of their kind must not load.
NOT_AT_START = (
    "textual",
    "rich",
    "passk_tui.reports.report_html",
    "passk_tui.reports.junit",
    "passk_tui.cli.pair",
    "passk_tui.reports.compare_export",
    "xml.etree.ElementTree",
)


def loaded_after(argv: list[str], tmp_path: Path) -> tuple[int, list[str]]:
    """Run ``main(argv)`` in a fresh interpreter; its exit status and every module then loaded."""
    code = (
        "import json, sys, contextlib, io\n"
        "from passk_tui.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    rc = main({argv!r})\n"
        "print(json.dumps([rc, sorted(sys.modules)]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSK_")}
    env["PASSK_DATA_DIR"] = str(tmp_path / "store")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    rc, modules = json.loads(done.stdout)
    return rc, modules


#: What neither a plain headless run of a command agent nor ``--help`` may load, with
#: their submodules: the app, every report (the plain table is core's, core/render/table.py)
#: and the comparison.
NOT_IN_A_PLAIN_RUN = (
    "passk_tui.api",  # the Python API: passk_tui/__init__.py names it lazily
    "textual",
    "rich",
    "passk_tui.tui",
    "passk_tui.reports",
    "passk_tui.cli.pair",
    "passk_tui.cli.compare",
    "passk_tui.core.stats.comparing.compare",
)


def unexpected(modules: list[str]) -> list[str]:
    """The modules of ``modules`` that are, or are inside, one of NOT_IN_A_PLAIN_RUN."""
    return [
        name
        for name in modules
        if any(name == lazy or name.startswith(f"{lazy}.") for lazy in NOT_IN_A_PLAIN_RUN)
    ]


def test_a_plain_command_agent_run_loads_no_app_no_report_and_no_comparison(
    tmp_path: Path,
) -> None:
    agents = shutil.copytree(AGENTS, tmp_path / "agents")  # the agent writes beside itself
    argv = ["--headless", "--agents", str(agents / "agents.toml"), "--agent", "scripted"]
    argv += ["--version", "1", "--cases", str(agents / "seed.toml"), "--attempts", "1"]
    rc, modules = loaded_after(argv, tmp_path)
    assert rc == 0
    assert "passk_tui.core.render.table" in modules  # the table was printed from core
    assert unexpected(modules) == []
    assert "httpx" not in modules and "aiohttp" not in modules  # no HTTP client either


def test_a_plain_stack_run_loads_no_app_no_report_and_no_aiohttp(
    make_stack: Callable[..., StackServer], tmp_path: Path
) -> None:
    """The HTTP client is httpx over our own transport: aiohttp (~0.13 s of import, half
    a one-case run's start-up) and httpx's own pool (httpcore) stay out of a stack run."""
    stack = make_stack(keys=None)
    cases = tmp_path / "one.jsonl"
    cases.write_text('{"name": "one", "input": "hi"}\n')
    argv = ["--headless", "--stack", stack.url, "--agent", "demo", "--version", "1"]
    argv += ["--cases", str(cases), "--attempts", "1", "--completion-only"]
    rc, modules = loaded_after(argv, tmp_path)
    assert rc == 0
    assert "passk_tui.targets.http_transport" in modules  # the run went over HTTP
    assert unexpected(modules) == []
    assert [name for name in modules if name.split(".")[0] in ("aiohttp", "httpcore")] == []


def test_help_loads_no_app_no_report_and_no_comparison(tmp_path: Path) -> None:
    code = (
        "import contextlib, io, json, sys\n"
        "from passk_tui.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    modules = json.loads(done.stdout)
    assert "passk_tui.cli.flags" in modules
    assert unexpected(modules) == []
    assert "passk_tui.cli.run" not in modules and "asyncio" not in modules
    # The help text says what the gate means without loading the statistics that apply it.
    assert [name for name in modules if name.startswith("passk_tui.core.stats")] == []


def test_unexpected_names_the_app_reports_and_the_comparison() -> None:
    """The filter itself, so the two tests above can fail."""
    names = ["textual.app", "rich", "passk_tui.reports", "passk_tui.reports.export"]
    names += [
        "passk_tui.cli.pair",
        "passk_tui.core.stats.comparing.compare",
        "passk_tui.tui.app.app",
    ]
    names += ["passk_tui.api", "passk_tui.api.evaluate"]
    assert (
        unexpected([*names, "passk_tui.core.render.table", "richer", "passk_tui.cli.run"]) == names
    )


def test_a_plain_headless_demo_run_loads_no_app_and_no_export_layouts(tmp_path: Path) -> None:
    rc, modules = loaded_after(["--headless", "--demo", "--attempts", "1"], tmp_path)
    assert rc in (0, 1, 4)
    assert [name for name in NOT_AT_START if name in modules] == []


def test_a_cases_file_without_a_regex_check_does_not_load_regex(tmp_path: Path) -> None:
    agents = shutil.copytree(AGENTS, tmp_path / "agents")  # the agent writes beside itself
    argv = ["--headless", "--agents", str(agents / "agents.toml"), "--agent", "scripted"]
    argv += ["--version", "1", "--cases", str(agents / "seed.toml")]
    rc, modules = loaded_after(argv, tmp_path)
    assert rc == 0
    assert "regex" not in modules and "passk_tui.core.checks.kinds" in modules


def test_an_export_loads_its_own_layout_and_only_that(tmp_path: Path) -> None:
    """The other side, so the checks above can fail: .html loads the HTML report, not JUnit."""
    page = tmp_path / "report.html"
    argv = ["--headless", "--demo", "--attempts", "1", "--export", str(page)]
    _, modules = loaded_after(argv, tmp_path)
    assert "passk_tui.reports.report_html" in modules and page.read_text().startswith("<!")
    assert "passk_tui.reports.junit" not in modules
