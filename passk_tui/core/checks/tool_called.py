"""The `tool_called` check: the agent called a tool of that name with (at least) those arguments.

What a tool-using agent must do is often an act, not a sentence: refund order 1234.
The check reads the attempt's transcript: it passes when some tool call has the name
and its arguments contain the ones given (each key equal, nested tables contained
likewise; a call may carry more).
"""

from __future__ import annotations

from typing import Any

from passk_tui.core.attempt import Verdict
from passk_tui.core.checks.base import PASS, Check
from passk_tui.core.errors import InputError
from passk_tui.core.text.mentions import refuse_unknown_keys, shorten
from passk_tui.core.transcript import Transcript

_KEYS = ("name", "arguments")


class ToolCalled(Check):
    """``tool_called = { name = "refund", arguments = { order_id = "1234" } }``."""

    waits = False

    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        table = spec["tool_called"]
        where = f"{where}: tool_called"
        if not isinstance(table, dict):
            raise InputError(f"{where}: must be a table {{ name, arguments? }}")
        refuse_unknown_keys(table, _KEYS, where)
        name = table.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"{where}: name must be a non-empty string")
        arguments = table.get("arguments", {})
        if not isinstance(arguments, dict):
            raise InputError(f"{where}: arguments must be a table")
        self.name = name
        self.arguments: dict[str, Any] = arguments

    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        calls = [] if transcript is None else [m for m in transcript.tools() if m.name == self.name]
        if any(contains(call.arguments, self.arguments) for call in calls):
            return PASS
        if not calls:
            return Verdict(False, f"no call of tool {self.name!r}")
        shown = shorten(repr(calls[-1].arguments))
        return Verdict(
            False,
            f"{len(calls)} call(s) of {self.name!r}, none with those arguments (last: {shown})",
        )


def contains(value: Any, wanted: Any) -> bool:
    """True when ``value`` holds ``wanted``: tables key by key (more keys allowed), else equal."""
    if isinstance(wanted, dict):
        return isinstance(value, dict) and all(
            key in value and contains(value[key], item) for key, item in wanted.items()
        )
    return (bool(value == wanted) and type(value) is type(wanted)) or _same_number(value, wanted)


def _same_number(value: Any, wanted: Any) -> bool:
    """1 and 1.0 are the same argument; True and 1 are not."""
    numbers = (int, float)
    return (
        isinstance(value, numbers)
        and isinstance(wanted, numbers)
        and not isinstance(value, bool)
        and not isinstance(wanted, bool)
        and value == wanted
    )
