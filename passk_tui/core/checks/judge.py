"""The `judge` check: a model grades the answer against a rubric, by a majority of its votes.

The check only describes the judging: the prompt, the strict reading of the verdict
line, how often a vote is asked again, the majority. The Runs themselves go through
the panel the engine holds for the attempt (``core.checks.panel``): a Target of the
judge agent, built where targets are made, each vote stored before the attempt is shown.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from passk_tui.core.attempt import Verdict, Vote
from passk_tui.core.checks.base import (
    PASS,
    Check,
    checked_answer,
    reads_transcript,
    string_field,
)
from passk_tui.core.checks.panel import JudgeName, current_panel
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import storable_json
from passk_tui.core.text.mentions import type_name
from passk_tui.core.transcript import Transcript

#: The judge's prompt unless the check gives its own: the case input, the answer, the rubric.
DEFAULT_PROMPT = """You grade one answer of an AI agent against a rubric.

The agent was given:
{input}

The agent answered:
{answer}

The rubric the answer must meet:
{rubric}

Say briefly whether the answer meets the rubric, then end with one line that is exactly
VERDICT: PASS
or exactly
VERDICT: FAIL"""

#: The keys of a judge check besides ``judge`` (the rubric) itself.
JUDGE_KEYS = ("agent", "version", "votes", "prompt")  # and ``on``, shared with `command`
#: How many times a vote with no verdict, or whose Run errored, is asked again.
ASKED_AGAIN = 2
#: The most votes per answer: beyond it no majority is any surer, and the bill is not.
MAX_VOTES = 99
_PLACEHOLDERS = ("{input}", "{answer}", "{rubric}")


def parse_verdict(text: Any) -> bool | None:
    """The verdict of a judge's text: its last non-blank line is exactly ``VERDICT: PASS`` (True)
    or ``VERDICT: FAIL`` (False); anything else is no verdict (None). Strict on purpose: a
    verdict guessed from prose would count the judge's own confusion as the agent's."""
    if not isinstance(text, str):
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    return {"VERDICT: PASS": True, "VERDICT: FAIL": False}.get(lines[-1])


def majority(votes: Sequence[Vote], asked: int) -> Verdict:
    """Passed or wrong by a strict majority of the ``asked`` votes; errored without one.

    The judge is a tool: its failing (no verdict, an errored Run) never makes an answer wrong.
    """
    passes = sum(1 for vote in votes if vote.verdict is True)
    fails = sum(1 for vote in votes if vote.verdict is False)
    needed = asked // 2 + 1
    if passes >= needed:
        return PASS
    if fails >= needed:
        return Verdict(False, f"judge: {fails}/{asked} votes fail")
    missing = asked - passes - fails
    last = next((v for v in reversed(votes) if v.verdict is None), None)
    why = f"; last: {last.error or 'no VERDICT line'}" if last is not None else ""
    return Verdict(
        False,
        f"judge: no majority of valid votes ({passes} pass, {fails} fail, "
        f"{missing} without a verdict){why}",
        errored=True,
    )


class JudgeCheck(Check):
    """``judge = "<rubric>"`` with ``agent`` (the judge), ``version``, ``votes`` (odd) and ``prompt``."""

    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.where = where
        self.rubric = string_field(spec, "judge", where)
        if not self.rubric.strip():
            raise InputError(f"{where}: judge: the rubric must not be empty")
        if "agent" not in spec:
            raise InputError(f"{where}: agent: a judge needs the agent that grades")
        self.agent = string_field(spec, "agent", where)
        self.version = _whole(spec, "version", where, None)
        self.name = JudgeName(self.agent, self.version)
        self.votes: int = _whole(spec, "votes", where, 1) or 1
        if self.votes % 2 == 0:
            raise InputError(f"{where}: votes must be odd (a majority decides), got {self.votes}")
        if self.votes > MAX_VOTES:
            raise InputError(f"{where}: votes must be at most {MAX_VOTES}, got {self.votes}")
        self.prompt = string_field(spec, "prompt", where) if "prompt" in spec else DEFAULT_PROMPT
        if "{answer}" not in self.prompt:
            raise InputError(f"{where}: prompt must hold {{answer}}, where the answer goes")
        #: True: the judge is shown the attempt's transcript as JSON where the answer goes.
        self.on_transcript = reads_transcript(spec, where)

    def prompt_for(self, case_input: Any, output: Any) -> str:
        """The prompt the judge is asked: the template with the input, answer and rubric in."""
        values = {
            "{input}": checked_answer(case_input),
            "{answer}": checked_answer(output),
            "{rubric}": self.rubric,
        }
        # One pass over the template, so an answer holding "{rubric}" stays as written.
        parts: list[str] = []
        rest = self.prompt
        while rest:
            found = [(rest.find(p), p) for p in _PLACEHOLDERS if p in rest]
            if not found:
                parts.append(rest)
                break
            at, placeholder = min(found)
            parts.append(rest[:at] + values[placeholder])
            rest = rest[at + len(placeholder) :]
        return "".join(parts)

    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        panel = current_panel()
        if panel is None:
            return Verdict(False, "judge: no judge to ask here", errored=True)
        if self.on_transcript:
            seen = transcript if transcript is not None else Transcript()
            output = storable_json(seen.to_json())
        prompt = self.prompt_for(panel.case_input, output)
        digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        votes: list[Vote] = []
        for _ in range(self.votes):
            for _ask in range(1 + ASKED_AGAIN):
                vote = await panel.ask(self.name, prompt, digest)
                if vote.verdict is not None:
                    votes.append(vote)
                    break
            else:
                votes.append(vote)
        return majority(votes, self.votes)


def _whole(spec: dict[str, Any], key: str, where: str, default: int | None) -> int | None:
    """``spec[key]`` when a whole number of at least 1; ``default`` when absent."""
    if key not in spec:
        return default
    value = spec[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: {key} must be a whole number, got {type_name(value)}")
    if value < 1:
        raise InputError(f"{where}: {key} must be at least 1, got {value}")
    return value
