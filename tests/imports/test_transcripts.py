"""Imported logs keep their conversations: each attempt's messages, tool calls with their
names, arguments, results and errors, as the attempt's transcript (issue 32 item 3).

``inspect-tools.eval`` (and inspect's own ``.json`` conversion of it) were written by inspect_ai
(``bench/imports/make_fixtures.sh``): a model that calls ``multiply``, then ``divide`` by zero
(the tool fails), then answers. tau-bench's files in the fixtures hold no tool calls, so the
tool-call shapes of tau-bench (OpenAI's) and tau2-bench (its own) are written here as their
sources define them.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from passk_tui.core.transcript import MESSAGE_LIMIT, Transcript
from passk_tui.evaluations.imported import ImportView, import_files
from passk_tui.imports.conversation import messages_of, transcript_from, transcript_text
from passk_tui.imports.inspect_log import read_inspect
from passk_tui.imports.model import BadLog
from passk_tui.imports.tau import read_tau
from passk_tui.imports.transcripts_aside import BATCH, TranscriptsAside
from passk_tui.imports.zip_members import Archive
from passk_tui.store import Store
from tests.imports.test_import_cli import passk
from tests.imports.test_import_kill import _big_log
from tests.support.zips import spoil_member

FIXTURES = Path(__file__).parent.parent / "fixtures" / "imports"
TOOLS = FIXTURES / "inspect-tools.eval"


def _shape(transcript: Transcript | None) -> list[tuple[Any, ...]]:
    assert transcript is not None
    return [
        (m.role, m.content, m.calls, m.id, m.name, m.arguments, m.error)
        for m in transcript.messages
    ]


EXPECTED = [
    ("user", "What is 17 * 23? Use the tools. (#T)", (), None, None, None, False),
    ("assistant", "", ("call_1",), None, None, None, False),
    ("tool", "391", (), "call_1", "multiply", {"a": 17, "b": 23}, False),
    ("assistant", "", ("call_2",), None, None, None, False),
    ("tool", "cannot divide by zero", (), "call_2", "divide", {"a": 391, "b": 0}, True),
    ("assistant", "391", (), None, None, None, False),
]


@pytest.mark.parametrize("name", ["inspect-tools.eval", "inspect-tools.json"])
def test_an_inspect_conversation_with_tools_is_the_transcript(name: str) -> None:
    run = read_inspect([FIXTURES / name])
    assert [(a.case, a.attempt) for a in run.attempts] == [("with-tools", 1), ("with-tools", 2)]
    for attempt in run.attempts:
        assert _shape(attempt.transcript) == EXPECTED


def test_the_transcript_holds_what_the_file_holds() -> None:
    """Role by role and call by call, against the sample members as inspect wrote them."""
    with Archive(TOOLS) as archive:
        samples = [json.loads(archive.read(i)) for i in archive.members("samples/")]
    run = read_inspect([TOOLS])
    for sample, attempt in zip(samples, run.attempts, strict=True):
        assert attempt.transcript is not None
        assert [m["role"] for m in sample["messages"]] == [
            m.role for m in attempt.transcript.messages
        ]
        calls = [c for m in sample["messages"] for c in m.get("tool_calls") or []]
        assert [(c["id"], c["function"], c["arguments"]) for c in calls] == [
            (m.id, m.name, m.arguments) for m in attempt.transcript.tools()
        ]


def test_messages_are_read_without_the_rest_of_a_sample_and_alike() -> None:
    with Archive(TOOLS) as archive:
        for info in archive.members("samples/"):
            data = archive.read(info)
            assert messages_of(data) == json.loads(data)["messages"]
    # A sample whose text holds the key itself: escaped inside a string, never taken for it.
    tricky = {"id": 1, "input": 'say "messages": [1]', "messages": [{"role": "user"}]}
    assert messages_of(json.dumps(tricky).encode()) == [{"role": "user"}]


def test_an_attempt_of_one_input_and_its_answer_stores_none() -> None:
    """The store keeps the input and the answer already: such a transcript is not written."""
    run = read_inspect([FIXTURES / "inspect-run1.json"])
    assert all(a.transcript is None for a in run.attempts)
    plain = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "q"}]
    assert transcript_from([*plain, {"role": "assistant", "content": "a"}], "q", "a") is None
    kept = transcript_from([*plain, {"role": "assistant", "content": "a!"}], "q", "a")
    assert _shape(kept)[1][:2] == ("assistant", "a!")
    # Parts for content: told plain only once mapped, with the answer or without one.
    parts = [{"role": "user", "content": [{"type": "text", "text": "q"}]}]
    assert transcript_from(parts, "q", None) is None
    answered = [*parts, {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]
    assert transcript_from(answered, "q", "a") is None
    assert transcript_from([*answered, *parts], "q", "a") is not None


def test_a_message_past_the_limit_says_its_own_length_once_cut() -> None:
    """An inspect conversation's text is its transcript bounded once: bounded again, the cut
    message was cut anew and said the length of the cut text (16409), not its own."""
    long = "x" * (MESSAGE_LIMIT + 500)
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": long},
        {"role": "user", "content": "more?"},
    ]
    text = transcript_text(messages, "q", "a")
    assert text is not None
    content = Transcript.from_json(json.loads(text)).messages[1].content
    assert content == "x" * MESSAGE_LIMIT + f"… [cut: {MESSAGE_LIMIT + 500} characters]"


def test_tau_fixtures_conversations_are_their_transcripts() -> None:
    for name, key in (("tau-bench-results.json", "traj"), ("tau2-airline.json", "messages")):
        whole = json.loads((FIXTURES / name).read_text())
        trials = whole if isinstance(whole, list) else whole["simulations"]
        run = read_tau([FIXTURES / name])
        for trial, attempt in zip(trials, run.attempts, strict=True):
            said = [(m["role"], m["content"] or "") for m in trial[key] if m["role"] != "system"]
            if not said:  # a trial that raised before its first message
                assert attempt.transcript is None
                continue
            assert attempt.transcript is not None
            assert said == [(m.role, m.content) for m in attempt.transcript.messages]


def _call_and_answer(tau2: bool) -> list[dict[str, Any]]:
    """A trajectory with one tool call and its answer, as each tau writes it."""
    if tau2:
        call = {"id": "c1", "name": "get_order", "arguments": {"id": "7"}, "requestor": "assistant"}
        answer = {"role": "tool", "id": "c1", "content": "no such order", "error": True}
    else:
        function = {"name": "get_order", "arguments": json.dumps({"id": "7"})}
        call = {"id": "c1", "type": "function", "function": function}
        answer = {"role": "tool", "tool_call_id": "c1", "name": "get_order", "content": "x"}
    return [
        {"role": "system", "content": "You are an airline agent."},
        {"role": "user", "content": "where is order 7?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        answer,
        {"role": "assistant", "content": "It is lost."},
    ]


@pytest.mark.parametrize("tau2", [False, True])
def test_tau_tool_calls_become_tool_messages(tmp_path: Path, tau2: bool) -> None:
    path = tmp_path / "results.json"
    messages = _call_and_answer(tau2)
    if tau2:
        simulation = {
            "task_id": "7",
            "trial": 0,
            "messages": messages,
            "reward_info": {"reward": 0},
        }
        path.write_text(
            json.dumps({"info": {}, "tasks": [{"id": "7"}], "simulations": [simulation]})
        )
    else:
        path.write_text(
            json.dumps([{"task_id": 7, "reward": 0, "info": {}, "traj": messages, "trial": 0}])
        )
    (attempt,) = read_tau([path]).attempts
    content = "no such order" if tau2 else "x"
    assert _shape(attempt.transcript) == [
        ("user", "where is order 7?", (), None, None, None, False),
        ("assistant", "", ("c1",), None, None, None, False),
        ("tool", content, (), "c1", "get_order", {"id": "7"}, tau2),
        ("assistant", "It is lost.", (), None, None, None, False),
    ]


def test_the_export_carries_the_transcript_and_a_reimport_is_the_same(app_env: Path) -> None:
    out = app_env / "out.json"
    result = passk("import", "inspect", str(TOOLS), "--export", str(out))
    assert result.returncode == 0, result.stderr
    exported = json.loads(out.read_text())
    for attempt in exported["attempts"]:
        messages = attempt["transcript"]["messages"]
        assert [m["role"] for m in messages] == [row[0] for row in EXPECTED]
        assert messages[4] == {
            "role": "tool", "turn": 1, "content": "cannot divide by zero", "id": "call_2",
            "name": "divide", "arguments": {"a": 391, "b": 0}, "error": True,
        }  # fmt: skip
    with Store.open() as store:
        (first,) = store.list_evaluations()
        assert [_shape(r.transcript) for r in store.load(first.id).records] == [EXPECTED] * 2
    again = import_files("inspect", [TOOLS], {}, ImportView())
    assert again.again and again.evaluation_id == first.id


def test_an_import_stored_before_transcripts_still_opens(app_env: Path) -> None:
    """As a store written before this change holds it: the attempts, no transcript rows."""
    first = import_files("inspect", [TOOLS], {}, ImportView())
    with Store.open() as store:
        path = store.path
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM transcripts")
    db.close()
    with Store.open() as store:
        assert all(r.transcript is None for r in store.load(first.evaluation_id).records)
    again = import_files("inspect", [TOOLS], {}, ImportView())
    assert again.again and again.evaluation_id == first.evaluation_id


@pytest.mark.parametrize("name", ["inspect-tools.eval", "inspect-tools.json"])
def test_no_transcripts_reads_the_outcomes_alone(name: str) -> None:
    kept, bare = (read_inspect([FIXTURES / name], None, keep) for keep in (True, False))
    assert all(a.transcript is None for a in bare.attempts)
    assert [replace(a, transcript=None) for a in kept.attempts] == bare.attempts


def test_no_transcripts_is_another_import_of_the_same_file(app_env: Path) -> None:
    kept = import_files("inspect", [TOOLS], {}, ImportView())
    bare = import_files("inspect", [TOOLS], {"transcripts": False}, ImportView())
    assert not bare.again and bare.evaluation_id != kept.evaluation_id
    with Store.open() as store:
        assert all(r.transcript is None for r in store.load(bare.evaluation_id).records)


def _asked_all(log: Path, members: list[str]) -> list[str | None]:
    """``members`` of ``log`` asked of the conversations' reader, its answers in order."""
    with Archive(log) as archive:
        aside = TranscriptsAside(archive)
        try:
            for member in members:
                aside.ask(member, "q", "a")
        except BaseException:
            aside.close()
            raise
    try:
        return list(aside.answers())
    finally:
        aside.close()


def _samples(log: Path) -> list[str]:
    """The log's sample members, every seventh followed by one it lacks (answered None)."""
    with Archive(log) as archive:
        names = sorted(n for n in archive.names() if n.startswith("samples/"))
    return [m for i, n in enumerate(names) for m in ([n, f"none/{i}"] if i % 7 else [n])]


def test_the_conversations_read_by_two_processes_come_in_the_order_asked(tmp_path: Path) -> None:
    """The child reads the first batches, this process the last ones once it has asked all:
    each text is still its own member's, in the order asked (3 batches and some)."""
    log = _big_log(tmp_path / "big.eval", samples=160)
    members = _samples(log)
    with Archive(log) as archive:
        alone = [
            transcript_text(messages_of(archive.read(n)), "q", "a")
            if n in archive.names()
            else None
            for n in members
        ]
    assert len(members) > 3 * BATCH and None in alone and alone[0] is not None
    assert _asked_all(log, members) == alone


def test_the_first_damaged_member_is_named_whichever_process_read_it(tmp_path: Path) -> None:
    log = _big_log(tmp_path / "big.eval", samples=160)
    spoil_member(log, "samples/s00159_epoch_5.json", 4, b"\xff\xff\xff\xff")
    with pytest.raises(BadLog, match=r"samples/s00159_epoch_5\.json: "):
        _asked_all(log, _samples(log))
    spoil_member(log, "samples/s00002_epoch_1.json", 4, b"\xff\xff\xff\xff")
    with pytest.raises(BadLog, match=r"samples/s00002_epoch_1\.json: "):
        _asked_all(log, _samples(log))
