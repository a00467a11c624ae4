"""An import of a big inspect archive is all or nothing, with its second process too.

The conversations are read by a forked child while the parent maps and stores: a kill -9 of
the parent at any moment leaves either no evaluation or the whole of it, and the child goes
with it; a damaged sample member (read by the child) is one line naming it, exit 2, nothing
stored.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from passk_tui.imports.zip_members import Archive
from passk_tui.store import Store
from tests.support.cli import command, environment
from tests.support.zips import spoil_member

FIXTURE = Path(__file__).parent.parent / "fixtures" / "imports" / "inspect-tools.eval"


def _big_log(path: Path, samples: int, epochs: int = 5) -> Path:
    """An archive of ``samples`` x ``epochs`` made of the fixture's samples (each with tool
    calls, so each has a transcript to store), deflated, with its summaries."""
    with Archive(FIXTURE) as archive:
        names = sorted(n for n in archive.names() if n.startswith("samples/"))
        templates = [json.loads(archive.read(n)) for n in names]
        summary = json.loads(archive.read("summaries.json"))[0]
        header = json.loads(archive.read("header.json"))
    ids = [f"s{n:05d}" for n in range(samples)]
    header["eval"]["dataset"].update(samples=samples, sample_ids=ids)
    made = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for n, sample_id in enumerate(ids):
            for epoch in range(1, epochs + 1):
                sample = dict(templates[(n + epoch) % len(templates)], id=sample_id, epoch=epoch)
                out.writestr(f"samples/{sample_id}_epoch_{epoch}.json", json.dumps(sample))
                made.append(dict(summary, id=sample_id, epoch=epoch))
        out.writestr("summaries.json", json.dumps(made))
        out.writestr("header.json", json.dumps(header))
    return path


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for a reaper the container may lack)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait_for(condition: object, what: str, limit: float = 120.0) -> None:
    """Poll until ``condition()`` holds (no timing is asserted: the limit only ends a hang)."""
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"never saw: {what}")
        time.sleep(0.005)


def _importing(log: Path, stderr: int) -> subprocess.Popen[str]:
    """``passk-tui import inspect LOG`` started as a user starts it, its stdout dropped."""
    return subprocess.Popen(
        command("import", "inspect", str(log), headless=False),
        env=environment(),
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
    )


def _stored() -> list[tuple[int, int]]:
    """Each evaluation's attempts and transcripts, as the store holds them."""
    with Store.open() as store:
        found = []
        for summary in store.list_evaluations():
            records = store.load(summary.id).records
            found.append((len(records), sum(r.transcript is not None for r in records)))
        return found


@pytest.mark.parametrize("moment", ["child forked", "child gone"])
def test_a_kill_mid_import_leaves_nothing_or_everything(tmp_path: Path, moment: str) -> None:
    process = _importing(_big_log(tmp_path / "big.eval", samples=600), subprocess.DEVNULL)
    seen: list[int] = []

    def forked() -> bool:
        seen.extend(_children(process.pid))
        return bool(seen) or process.poll() is not None

    _wait_for(forked, "the conversations' child forked")
    if moment == "child gone":  # its answers drawn: the parent is writing the transcripts
        _wait_for(lambda: not any(_running(c) for c in seen), "the child's end")
    process.send_signal(signal.SIGKILL)
    process.wait()
    _wait_for(lambda: not any(_running(c) for c in seen), "the orphaned child's end")
    stored = _stored()
    assert stored in ([], [(3000, 3000)]), stored


def test_ctrl_c_mid_import_is_one_line_and_nothing_or_everything(tmp_path: Path) -> None:
    """Ctrl-C while the log is read: one line saying what became of the import, exit 130,
    no traceback, and the store holds nothing (or, past the commit, the whole import)."""
    process = _importing(_big_log(tmp_path / "big.eval", samples=600), subprocess.PIPE)
    _wait_for(lambda: _children(process.pid) or process.poll() is not None, "the child forked")
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    last = stderr.splitlines()[-1]
    assert "Traceback" not in stderr
    if _stored() == []:
        assert last == "passk-tui: interrupted: nothing imported"
    else:
        assert _stored() == [(3000, 3000)] and last.startswith(
            "passk-tui: interrupted: imported as"
        )


#: The CLI run as its program, with an at-fork handler that interrupts its own process while
#: the conversations' reader is forked: where a real Ctrl-C once landed in CI.
_CTRL_C_AT_FORK = """
import os, signal, sys
from passk_tui.cli.main import main

def interrupted_here():
    os.kill(os.getpid(), signal.SIGINT)
    sum(range(1000))  # Python runs the signal's handler here, inside the at-fork handler

os.register_at_fork(after_in_parent=interrupted_here)
sys.exit(main())
"""


def test_a_ctrl_c_while_the_reader_forks_is_not_lost(tmp_path: Path) -> None:
    """Before, the KeyboardInterrupt raised inside an at-fork handler was printed as
    'Exception ignored' and dropped: the import went on and exited 0."""
    log = _big_log(tmp_path / "big.eval", samples=40)
    result = subprocess.run(
        command("import", "inspect", str(log), headless=False, launch=("-c", _CTRL_C_AT_FORK)),
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 130, result.stderr
    assert result.stderr.strip() == "passk-tui: interrupted: nothing imported"
    assert _stored() == []


def test_a_damaged_sample_member_is_named_and_nothing_is_stored(tmp_path: Path) -> None:
    log = _big_log(tmp_path / "big.eval", samples=40)
    spoil_member(log, "samples/s00031_epoch_2.json", 4, b"\xff\xff\xff\xff")
    result = subprocess.run(
        command("import", "inspect", str(log), headless=False),
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"passk-tui: {log}: samples/s00031_epoch_2.json: ")
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""
    assert _stored() == []
