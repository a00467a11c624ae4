"""The Python and pytest page's examples (docs/python.md) run as written and print what it shows."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.doc_examples import files, normalized, private_env, run_shown, shown


def test_the_section_has_a_python_example_and_a_pytest_one() -> None:
    assert set(files()) == {"my_eval.py", "test_agent.py"}
    assert [run.command for run in shown()] == ["python my_eval.py", "pytest -q test_agent.py"]


def test_the_examples_print_what_the_page_shows(tmp_path: Path) -> None:
    folder = tmp_path / "my-project"  # the pytest example's evaluation is stored under its name
    folder.mkdir()
    for run, printed in run_shown(Path(sys.executable), folder, private_env(tmp_path / "data")):
        assert printed == normalized(run.output), run.command
