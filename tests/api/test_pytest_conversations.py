"""A conversation as a marked test: ``turns`` played in each attempt, the body called once a
turn with the messages so far, its last reply checked, every attempt's transcript kept."""

from __future__ import annotations

import json
from pathlib import Path

from tests.api.test_pytest_plugin import outcomes, plugin_session, reported_attempts

MARKED = """
import pytest

TURNS = ["A table for two, please.", "Tomorrow at 7pm.", "Yes, confirm it."]

def booking(messages):
    said = [m["content"] for m in messages if m["role"] == "user"]
    return "Your table is confirmed." if len(said) == 3 else f"Noted: {said[-1]}"

@pytest.mark.passk(attempts=3, k=1, require=1, turns=TURNS, check={"contains": "confirmed"})
def test_booking(passk_messages):
    return booking(passk_messages)

@pytest.mark.passk(attempts=2, k=1, require=1, turns=TURNS[:2], check={"contains": "confirmed"})
def test_booking_cut_short(passk_messages):
    return booking(passk_messages)
"""


def test_the_pytest_plugin_runs_a_conversation_and_keeps_its_transcript(tmp_path: Path) -> None:
    (tmp_path / "test_chat.py").write_text(MARKED)
    done = plugin_session(tmp_path, "--passk-export", "out.json")
    assert outcomes(done.stdout) == {
        "test_booking": "PASSED",
        "test_booking_cut_short": "FAILED",
    }, done.stdout + done.stderr
    exported = json.loads((tmp_path / "out.json").read_text())
    first = next(a for a in exported["attempts"] if a["case"].endswith("::test_booking"))
    messages = first["transcript"]["messages"]
    assert [(m["role"], m["turn"]) for m in messages] == [
        ("user", 1), ("assistant", 1), ("user", 2), ("assistant", 2),
        ("user", 3), ("assistant", 3),
    ]  # fmt: skip
    assert messages[1]["content"] == "Noted: A table for two, please."
    assert first["output"] == "Your table is confirmed."
    cut = next(a for a in exported["attempts"] if a["case"].endswith("cut_short"))
    assert cut["outcome"] == "wrong" and len(cut["transcript"]["messages"]) == 4


ASSERTING = """
import pytest

TURNS = ["A table for two, please.", "Tomorrow at 7pm.", "Yes, confirm it."]

@pytest.mark.passk(attempts=2, k=1, turns=TURNS, check={"contains": "confirmed"})
def test_booking_asserts(passk_messages):
    said = [m["content"] for m in passk_messages if m["role"] == "user"]
    assert len(said) < 2, "asked for a second message"
    return "Noted."
"""


def test_a_failed_assertion_in_a_conversation_is_a_wrong_answer_at_its_turn(
    tmp_path: Path,
) -> None:
    attempts = reported_attempts(tmp_path, "test_chat.py", ASSERTING)
    assert [(a["outcome"], a["reason"], a["error"]) for a in attempts] == [
        ("wrong", "turn 2: AssertionError: asked for a second message", None)
    ] * 2
    roles = [m["role"] for m in attempts[0]["transcript"]["messages"]]
    assert roles == ["user", "assistant", "user"]  # the turn that failed answered nothing
