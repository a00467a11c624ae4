"""examples/pytest runs as its README shows: the same outcomes, messages and table."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT
from tests.support.doc_examples import as_a_users_pytest, normalized, private_env

EXAMPLE = ROOT / "examples" / "pytest"


def test_the_example_prints_what_its_readme_shows(tmp_path: Path) -> None:
    folder = shutil.copytree(EXAMPLE, tmp_path / "pytest")
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```text\n\$ pytest (.*?)\n(.*?)```", readme, re.S)
    flags, shown = block
    env = as_a_users_pytest(private_env(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *flags.split()],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert normalized(done.stdout) == normalized(shown)
