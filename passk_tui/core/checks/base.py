"""What every check kind shares: the Check interface, the answer as text, and reason helpers."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any

from passk_tui.core.attempt import Verdict
from passk_tui.core.errors import InputError
from passk_tui.core.text.mentions import (
    SHOWN_CHARS,
    finite_number,
    shorten,
    shown_number,
    type_name,
)
from passk_tui.core.transcript import Transcript

PASS = Verdict(True)


def checked_answer(output: Any) -> str:
    """The answer as the text checks see it: trimmed; JSON text for a non-string; '' for None."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output.strip()
    return json.dumps(output, ensure_ascii=False).strip()


def raw_text(output: Any) -> str:
    """The answer exactly as the agent gave it (untrimmed); JSON text for a non-string."""
    if output is None:
        return ""
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def strict_json_loads(text: str) -> Any:
    """json.loads without NaN/Infinity, which Python accepts but JSON does not."""
    return json.loads(text, parse_constant=_reject_constant)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def quote(text: str) -> str:
    """A short, one-line quotation of text for a reason (repr escapes newlines)."""
    return repr(shorten(text))


def tail(text: str) -> str:
    """The last non-blank line of a stream, cut from the left: where errors usually are."""
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    return last if len(last) <= SHOWN_CHARS else "…" + last[-(SHOWN_CHARS - 1) :]


def string_field(spec: dict[str, Any], key: str, where: str) -> str:
    value = spec[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} must be a string, got {type_name(value)}")
    return value


def finite_field(spec: dict[str, Any], key: str, where: str) -> float:
    """``spec[key]`` when it is a finite number; InputError naming the key otherwise."""
    value = spec[key]
    if not isinstance(value, int | float) or finite_number(value) is None:
        raise InputError(f"{where}: {key} must be a finite number, got {shown_number(value)}")
    return value  # as written: an integer stays exact


#: What a check may read (``on``): the last answer (the default) or the whole transcript.
ON_VALUES = ("answer", "transcript")


def reads_transcript(spec: dict[str, Any], where: str) -> bool:
    """Whether a check's ``on`` asks for the transcript (else the answer); InputError
    naming ``where`` for any other value. Shared by the `command` and `judge` checks."""
    on = spec.get("on", "answer")
    if on not in ON_VALUES:
        raise InputError(f"{where}: on must be one of {', '.join(map(repr, ON_VALUES))}")
    return bool(on == "transcript")


class Check(ABC):
    """One compiled check; ``spec`` is its table as written, for display."""

    #: True when judging may wait (a process, a regex searching off the loop): the engine
    #: then judges in a task of its own, which a cancel reaches.
    waits: bool = True

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    async def judge(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        """Judge one answer by ``deadline`` (the event loop's clock); a reason says why it failed.

        ``transcript`` is the attempt's (``core/transcript.py``), for the checks that read it
        (``tool_called``, ``on = "transcript"``); None: the answer is all there was.
        """
        try:
            return await self.verdict(output, deadline, transcript)
        except RecursionError:
            # An answer nested thousands deep (JSON from an agent) must not end the run.
            return Verdict(False, "answer nested too deep to check")

    @abstractmethod
    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        """The verdict itself, for ``judge``."""


class PureCheck(Check):
    """A quick pure function of the answer: judged on the event loop at once."""

    waits = False

    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        return self.evaluate(output)

    @abstractmethod
    def evaluate(self, output: Any) -> Verdict:
        """Judge one answer; on failure the reason says why, briefly."""
