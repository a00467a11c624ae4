"""``--label``: a few words stored with the evaluation and shown in History."""

from __future__ import annotations

import os

from passk_tui.store import Store
from tests.support.cli import run


def test_a_label_is_stored_and_shown_in_history() -> None:
    env = os.environ.copy()
    done = run("--demo", "--attempts", "2", "--label", "  nightly run ", env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    with Store.open() as store:
        (summary,) = store.list_evaluations()
        assert store.load(summary.id).settings.label == "nightly run"
    listed = run("history", headless=False, timeout=30, env=env)
    assert "demo · nightly run" in listed.stdout


def test_a_bad_label_is_one_line_naming_the_flag_and_nothing_starts() -> None:
    env = os.environ.copy()
    refused = run("--demo", "--label", "a\x1b[31mred", env=env, timeout=30)
    assert refused.returncode == 2
    assert refused.stderr == "passk-tui: --label: holds a control character (\\x1b)\n"
    with Store.open() as store:
        assert store.list_evaluations() == []
