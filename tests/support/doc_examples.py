"""The examples of the docs' Python and pytest page: its files, the commands shown running
them and the output shown, so that the doc test and the packaging test run them exactly as
written."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support import ROOT

#: The page that holds the examples (the README points at it).
PAGE = ROOT / "docs" / "python.md"
#: What differs between runs and is not the example's: evaluation ids and durations.
_VARIES = ((re.compile(r"ev_[0-9a-f]+"), "ev_…"), (re.compile(r" in \d+\.\d+s"), " in …s"))


@dataclass(frozen=True)
class Shown:
    """One ``$ command`` of a text block and the output the page shows after it."""

    command: str
    output: str


def section() -> str:
    """The page's text, every example in it."""
    return PAGE.read_text(encoding="utf-8")


def files() -> dict[str, str]:
    """Each Python block, by the file name its first line gives (``# my_eval.py ...``)."""
    found = {}
    for block in re.findall(r"```python\n(.*?)```", section(), re.S):
        found[block.split("\n", 1)[0].removeprefix("# ").split()[0]] = block
    return found


def shown() -> list[Shown]:
    """Each text block's command and output."""
    runs = []
    for block in re.findall(r"```text\n(.*?)```", section(), re.S):
        first, _, output = block.partition("\n")
        runs.append(Shown(first.removeprefix("$ "), output))
    return runs


def normalized(text: str) -> str:
    for pattern, same in _VARIES:
        text = pattern.sub(same, text)
    return text


def run_shown(python: Path, folder: Path, env: dict[str, str]) -> list[tuple[Shown, str]]:
    """Write the files into ``folder``, run each command there with ``python`` (``pytest``
    as ``python -m pytest``), and pair what each printed (normalized) with what is shown."""
    for name, text in files().items():
        (folder / name).write_text(text, encoding="utf-8")
    env = as_a_users_pytest(env)
    results = []
    for run in shown():
        words = run.command.split()
        argv = [str(python), *words[1:]] if words[0] == "python" else [str(python), "-m", *words]
        done = subprocess.run(
            argv, cwd=folder, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (run.command, done.stdout, done.stderr)
        results.append((run, normalized(done.stdout)))
    return results


def as_a_users_pytest(env: dict[str, str]) -> dict[str, str]:
    """``env`` as a user's terminal gives it to pytest: 80 columns, none of this suite's pytest
    options, and not CI (pytest on CI prints its short summary lines whole, untruncated)."""
    env = {**env, "COLUMNS": "80"}
    for name in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "CI", "BUILD_NUMBER"):
        env.pop(name, None)
    return env


def private_env(data: Path) -> dict[str, str]:
    """This environment without PASSK_ variables, the store in ``data``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PASSK_")}
    env["PASSK_DATA_DIR"] = str(data)
    return env
