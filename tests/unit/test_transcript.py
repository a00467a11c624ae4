"""The transcript's data model, its bound, its storage beside the attempt, and conversation cases."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import storable_transcript
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import load_cases
from passk_tui.core.run.conversation import step_key
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.target import RetryNotice
from passk_tui.core.transcript import (
    TRANSCRIPT_LIMIT,
    Conversation,
    Message,
    Transcript,
    cut_text,
)
from passk_tui.store import Store
from tests.support.engine import ListSink, settings
from tests.support.judging import verdict_of
from tests.support.old_stores import insert_old_evaluation, store_at_schema
from tests.support.records import record, settings_for

THREE_TURNS = """\
[[cases]]
name = "booking"
turns = ["A table for two, please.", "Tomorrow at 7pm.", "Yes, confirm it."]
check = { contains = "confirmed" }
"""


def _tool_transcript() -> Transcript:
    return Transcript(
        (
            Message("user", "Refund order 1234", 1),
            Message(
                "assistant", "", 1, usage={"input_tokens": 5, "output_tokens": 2}, calls=("c1",)
            ),
            Message(
                "tool", "ok", 1, id="c1", name="refund", arguments={"order_id": "1234", "n": 1}
            ),
            Message("assistant", "Done.", 1, usage={"input_tokens": 9, "output_tokens": 1}),
        )
    )


def test_json_round_trip_and_figures() -> None:
    transcript = _tool_transcript()
    again = Transcript.from_json(json.loads(json.dumps(transcript.to_json())))
    assert again == transcript
    assert (transcript.turns, transcript.tool_calls, transcript.steps) == (1, 1, 2)
    assert transcript.agent_usage() == {"input_tokens": 14, "output_tokens": 3}


def test_a_runaway_transcript_is_cut_and_says_so() -> None:
    messages = tuple(Message("assistant", "x" * 10_000, n) for n in range(1, 200))
    bounded = Transcript(messages).bounded()
    assert len(json.dumps(bounded.to_json())) <= TRANSCRIPT_LIMIT
    assert bounded.cut == 199 - len(bounded.messages) > 0
    one = Transcript((Message("user", "y" * 100_000, 1),)).bounded()
    assert one.messages[0].content.endswith("… [cut: 100000 characters]")


def test_a_cut_is_made_once_and_counts_the_whole_text() -> None:
    """A transcript is bounded where it is made and again where it is stored: the second
    bound leaves the cut alone, so the note still counts the original text (it said 16409,
    the first cut's own length, before)."""
    call = Message("assistant", "", 1, id="c1", name="t", arguments={"q": "z" * 20_000})
    once = Transcript((Message("user", "y" * 20_000, 1), call)).bounded()
    twice = once.bounded()
    assert twice == once
    assert twice.messages[0].content.endswith("… [cut: 20000 characters]")
    assert str(twice.messages[1].arguments).endswith("… [cut: 20009 characters]")
    stored = Transcript.from_json(json.loads(storable_transcript(once)))
    assert stored.messages[0].content == once.messages[0].content
    assert cut_text(cut_text("w" * 17_000)).endswith("… [cut: 17000 characters]")
    assert cut_text("short") == "short"


def test_a_conversation_input_is_the_messages_as_json() -> None:
    conversation = Conversation(_tool_transcript(), system="Be Ana.")
    assert json.loads(json.dumps(conversation)) == {
        "messages": [
            {"role": "system", "content": "Be Ana."},
            {"role": "user", "content": "Refund order 1234"},
            {"role": "assistant", "content": "Done."},
        ]
    }


def test_step_keys_stay_within_255_and_distinct() -> None:
    assert step_key("ev/c/a/1", "turn", 2) == "ev/c/a/1/turn/2"
    long = "k" * 250
    assert len(step_key(long, "turn", 3)) <= 255
    assert step_key(long, "turn", 3) != step_key(long + "x", "turn", 3)


def test_tool_called_reads_the_transcript(tmp_path: Path) -> None:
    from passk_tui.core.checks.kinds import compile_check

    check = compile_check(
        {"tool_called": {"name": "refund", "arguments": {"order_id": "1234"}}}, "c", tmp_path
    )
    assert verdict_of(check, "", transcript=_tool_transcript()).passed
    other = compile_check(
        {"tool_called": {"name": "refund", "arguments": {"order_id": "9"}}}, "c", tmp_path
    )
    verdict = verdict_of(other, "", transcript=_tool_transcript())
    assert not verdict.passed and "none with those arguments" in (verdict.reason or "")
    absent = compile_check({"tool_called": {"name": "cancel"}}, "c", tmp_path)
    assert (
        verdict_of(absent, "", transcript=_tool_transcript()).reason == "no call of tool 'cancel'"
    )


def test_a_command_check_on_the_transcript_gets_it_as_json(tmp_path: Path) -> None:
    from passk_tui.core.checks.kinds import compile_check

    script = tmp_path / "calls.py"
    script.write_text(
        "import json, sys\n"
        "t = json.load(sys.stdin)\n"
        "sys.exit(0 if any(m['role'] == 'tool' for m in t['messages']) else 1)\n"
    )
    spec = {"command": ["python3", "calls.py"], "on": "transcript"}
    check = compile_check(spec, "c", tmp_path)
    assert verdict_of(check, "Done.", transcript=_tool_transcript()).passed
    assert not verdict_of(check, "Done.", transcript=Transcript()).passed
    with pytest.raises(InputError, match="on must be one of 'answer', 'transcript'"):
        compile_check({"command": ["true"], "on": "answers"}, "c", tmp_path)
    with pytest.raises(InputError, match="on goes only with command"):
        compile_check({"equals": "x", "on": "transcript"}, "c", tmp_path)


@pytest.mark.parametrize(
    ("case", "problem"),
    [
        ('input = "x"\nturns = ["a"]', "input and turns both given (give exactly one)"),
        ("turns = []", "turns is empty"),
        ('turns = ["a", " "]', "turns[1] is empty"),
        ("turns = [1]", "turns must be a list of strings"),
        ('user = { instruction = "x" }', "user: agent must be a non-empty string"),
        (
            'user = { agent = "c", instruction = "x", max_turns = 0 }',
            "max_turns must be at least 1",
        ),
        ('user = { agent = "c", instruction = "x", stops = "#" }', "user: unknown key 'stops'"),
    ],
)
def test_bad_conversation_cases_are_one_line(tmp_path: Path, case: str, problem: str) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(f'[[cases]]\nname = "c"\n{case}\ncheck = {{ equals = "x" }}\n')
    with pytest.raises(InputError) as caught:
        load_cases(path)
    assert str(caught.value).startswith(f"{path}: line 1: case 'c': ")
    assert problem in str(caught.value)


class EchoTurns:
    """A target that answers each turn with the number of messages it was given."""

    def __init__(self, fail_at: int | None = None, hang_at: int | None = None) -> None:
        self.definition: dict[str, object] = {}
        self.keys: list[str] = []
        self.fail_at = fail_at
        self.hang_at = hang_at

    async def prepare(self) -> None:
        pass

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        self.keys.append(attempt.key)
        given = attempt.case.input
        assert isinstance(given, Conversation)
        if len(self.keys) == self.fail_at:
            return Turn("failed", error="boom")
        if len(self.keys) == self.hang_at:
            await asyncio.sleep(3600)
        count = len(given["messages"])
        text = "confirmed" if count == 5 else f"heard {count}"
        return Turn("completed", output=text, usage={"input_tokens": count, "output_tokens": 1})

    async def aclose(self) -> None:
        pass


def test_three_turns_in_one_attempt_each_with_its_key(tmp_path: Path) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(THREE_TURNS)
    cases = load_cases(path)
    target = EchoTurns()
    sink = ListSink()
    evaluation = Evaluation("ev_t", cases, settings(attempts=1, k=1), target, sink=sink)
    assert asyncio.run(evaluation.run()) == "done"
    (row,) = sink.rows
    assert row.outcome == "passed" and row.output == "confirmed"
    assert row.usage == {"input_tokens": 1 + 3 + 5, "output_tokens": 3}
    base = row.key
    assert target.keys == [f"{base}/turn/1", f"{base}/turn/2", f"{base}/turn/3"]
    assert row.transcript is not None
    assert [m.role for m in row.transcript.messages] == ["user", "assistant"] * 3
    assert row.transcript.turns == 3


def test_an_attempt_errors_at_the_turn_that_failed(tmp_path: Path) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(THREE_TURNS)
    sink = ListSink()
    evaluation = Evaluation(
        "ev_t", load_cases(path), settings(attempts=1, k=1), EchoTurns(fail_at=2), sink=sink
    )
    asyncio.run(evaluation.run())
    (row,) = sink.rows
    assert (row.outcome, row.status, row.error) == ("errored", "failed", "turn 2: boom")
    assert row.transcript is not None and row.transcript.turns == 2


def test_the_transcript_is_stored_with_its_attempt(tmp_path: Path) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(THREE_TURNS)
    cases = load_cases(path)
    kept = record(0, 1, case="booking", transcript=_tool_transcript())
    plain = record(0, 2, case="booking")
    with Store.open(tmp_path / "s.db") as store:
        store.create_evaluation("ev_x", settings_for(path), cases, "abc")
        store.write("ev_x", [kept, plain])
        stored = store.load("ev_x")
    assert stored.records == [kept, plain]
    assert stored.cases[0].turns == cases[0].turns


def test_a_store_written_before_transcripts_opens_and_reads(tmp_path: Path) -> None:
    from passk_tui.store.schema import SCHEMA_VERSION

    path = tmp_path / "old.db"
    with store_at_schema(path, SCHEMA_VERSION - 1) as db:
        insert_old_evaluation(db)
        db.execute(
            "INSERT INTO cases (evaluation_id, case_index, name, input, check_spec)"
            " VALUES ('ev_old', 0, 'one', '\"q\"', '{\"equals\": \"a\"}')"
        )
        db.execute(
            "INSERT INTO attempts (evaluation_id, case_index, attempt, retake, case_name, key,"
            " outcome, status, output, started, ended, duration)"
            " VALUES ('ev_old', 0, 1, 0, 'one', 'k', 'passed', 'completed', '\"a\"', 1, 2, 1)"
        )
    with Store.open(path) as store:
        stored = store.load("ev_old")
    assert stored.records[0].transcript is None
    assert stored.cases[0].turns is None and stored.cases[0].input == "q"


def test_a_conversation_cut_by_its_deadline_keeps_what_happened(tmp_path: Path) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(THREE_TURNS + "timeout = 0.3\n")
    sink = ListSink()
    target = EchoTurns(hang_at=2)
    evaluation = Evaluation("ev_t", load_cases(path), settings(attempts=1, k=1), target, sink=sink)
    asyncio.run(evaluation.run())
    (row,) = sink.rows
    assert (row.outcome, row.status) == ("errored", "timed_out")
    assert row.transcript is not None
    said = [(m.role, m.turn) for m in row.transcript.messages]
    assert said == [("user", 1), ("assistant", 1), ("user", 2)]
