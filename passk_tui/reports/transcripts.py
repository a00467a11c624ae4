"""Transcripts in the reports: each attempt's in the `.json`, each case's turns, tool calls and
steps (p50 / p95), and in the HTML report a conversation per attempt that held one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from passk_tui.core.attempt import AttemptRecord, transcript_of
from passk_tui.core.reading.vocabulary import ConversationSpread, Spread
from passk_tui.core.render.transcript_text import entries
from passk_tui.core.run.cases import Case
from passk_tui.core.text.amounts import counted
from passk_tui.reports.costs import Raw, money_json
from passk_tui.reports.html_page import cut_text, esc

#: Longest text of one message shown in the HTML report (its full size is said when longer).
MESSAGE_CHARS = 2000


def transcript_json(record: AttemptRecord, case: Case) -> dict[str, Any]:
    """An attempt's ``transcript`` in the .json: the stored one, or its input and answer."""
    return transcript_of(record, case.input).to_json()


def conversation_json(row: ConversationSpread, raw: Raw) -> dict[str, Any]:
    """A case's ``conversation`` in the .json: p50 / p95 of turns, tool calls and steps."""

    def spread(s: Spread) -> dict[str, float | None]:
        return {"p50": s.p50, "p95": s.p95}

    return {
        "turns": spread(row.turns),
        "tool_calls": spread(row.tool_calls),
        "steps": spread(row.steps),
        # A simulated user's tokens, counted apart from the agent's (not in ``tokens``).
        "user_tokens": row.user_tokens,
        "user_cost": money_json(row.user_cost, raw),
    }


def transcripts_html(records: Sequence[AttemptRecord]) -> str:
    """The conversations of a case's attempts that held one (or called tools), each folded."""
    return "".join(_one(r) for r in records if r.transcript is not None)


def _one(record: AttemptRecord) -> str:
    transcript = record.transcript
    assert transcript is not None
    lines = []
    for entry in entries(transcript):
        detail = f" · {esc(entry.detail)}" if entry.detail else ""
        mark = " error" * entry.error
        lines.append(
            f'<p class="msg {esc(entry.role)}{mark}"><b>{esc(entry.label)}</b>{detail}</p>'
            f"<pre>{cut_text(entry.body, MESSAGE_CHARS)}</pre>"
        )
    said = " · ".join(
        (
            counted(transcript.turns, "turn"),
            counted(transcript.tool_calls, "tool call"),
            counted(transcript.steps, "step"),
        )
    )
    return (
        f'<details class="transcript"><summary>#{record.attempt} {record.outcome} · '
        f"{said}</summary>{''.join(lines)}</details>"
    )
