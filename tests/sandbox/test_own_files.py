"""A sandboxed check sees its own files where they live under /tmp, and nothing else there.

A repository cloned under /tmp put every HumanEval check's script out of its own sight
(the sandbox's /tmp is private and empty): the command's files are shown read-only, the
folder of each (a script beside its modules and data), never /tmp as a whole.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from passk_tui.core.checks.command import CommandCheck

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

#: The check: imports its sibling module and reads its data file, then says what else it
#: reached: a write beside itself, a file of /tmp's that is not its own.
SCRIPT = """\
import os, sys
from pathlib import Path
here = Path(__file__).parent
sys.path.insert(0, str(here))
import expected
answer = sys.stdin.read()
assert answer == expected.ANSWER == (here / "data.txt").read_text(), answer
try:
    (here / "written").write_text("x")
    wrote = True
except OSError:
    wrote = False
secrets = [name for name in os.listdir("/tmp") if name.startswith("passk-secret-")]
if wrote or secrets:
    sys.exit(f"reached: wrote={wrote} secrets={secrets}")
"""
#: A script alone in /tmp (its folder is /tmp itself, which stays private and its own).
ALONE = """\
import os, sys
secrets = [name for name in os.listdir("/tmp") if name.startswith("passk-secret-")]
sys.exit(f"reached: secrets={secrets}" if secrets else 0)
"""


@pytest.fixture
def checks() -> Iterator[Path]:
    """A checks folder straight under /tmp, as a clone there has it, readable by all (run
    as root, a sandbox's program runs as nobody), beside a file no check should see."""
    folder = Path(tempfile.mkdtemp(prefix="passk-checks-", dir="/tmp"))
    secret = Path(tempfile.mkstemp(prefix="passk-secret-", dir="/tmp")[1])
    try:
        folder.chmod(0o755)
        for name, text in (("check.py", SCRIPT), ("expected.py", "ANSWER = 'ok'\n")):
            (folder / name).write_text(text)
        (folder / "data.txt").write_text("ok")
        yield folder
    finally:
        shutil.rmtree(folder)
        secret.unlink()


async def _verdict(argv: list[str], cases: Path, sandbox: bool) -> tuple[bool, str]:
    check = CommandCheck({"command": argv, "sandbox": sandbox}, "cases.toml: check", cases)
    verdict = await check.verdict("ok", asyncio.get_running_loop().time() + 60)
    return verdict.passed, verdict.reason or ""


@pytest.mark.parametrize("named", ["relative", "absolute"])
async def test_a_check_script_under_tmp_sees_its_folder_read_only_and_no_more(
    checks: Path, tmp_path: Path, named: str
) -> None:
    cases = tmp_path / "cases"  # under /tmp too: the cases folder is copied, as ever
    cases.mkdir()
    script = checks / "check.py"
    path = str(script) if named == "absolute" else os.path.relpath(script, cases)
    passed, said = await _verdict([sys.executable, path], cases, True)
    assert passed, said
    # On the host the same check reaches both: the walls above are the sandbox's.
    passed, said = await _verdict([sys.executable, path], cases, False)
    assert not passed and "reached: wrote=True secrets=['passk-secret-" in said, said


async def test_a_check_alone_in_tmp_is_shown_alone(checks: Path, tmp_path: Path) -> None:
    """A script straight in /tmp: the file is shown, not its folder (/tmp itself)."""
    alone = Path(tempfile.mkstemp(prefix="passk-check-", suffix=".py", dir="/tmp")[1])
    try:
        alone.write_text(ALONE)
        alone.chmod(0o644)
        passed, said = await _verdict([sys.executable, str(alone)], tmp_path, True)
        assert passed, said
    finally:
        alone.unlink()
