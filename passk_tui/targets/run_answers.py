"""Reading the stack's answers (runs-api.md): a Run's Turn, a Turn's error, an error body.

Each reader tolerates anything a stack may send: a malformed answer is None or
the status code, never an exception.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from passk_tui.core.attempt import ENDED_STATUSES, Turn

_LIVE_STATUSES = frozenset({"queued", "running"})
#: Run ids no quoting keeps as one path segment (URLs drop dot segments), and a bound on
#: what a stack may make us send back in every poll.
_UNUSABLE_IDS = frozenset({"", ".", ".."})
_ID_LIMIT = 1024


def error_of(response: httpx.Response) -> tuple[str, str]:
    """(code, message) from an error body, tolerating anything."""
    try:
        error = json.loads(response.content)["error"]
        return str(error.get("code") or response.status_code), str(error.get("message") or "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return str(response.status_code), response.reason_phrase


def error_text(error: Any) -> str | None:
    """A Turn's error object as "code: message" text."""
    if error is None:
        return None
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        if code and message:
            return f"{code}: {message}"
        return str(code or message or error)
    return str(error)


def ended_turn(response: httpx.Response) -> Turn | str | None:
    """From a Run answer: its Turn when ended, the Run's id while it runs, None when malformed
    (a status runs-api.md does not know is malformed: polling it again at once would spin;
    so is a running Run whose id cannot name it in a URL)."""
    try:
        run = json.loads(response.content)
        run_id = run["id"]
        turn = run["turn"]
        status = turn["status"]
        if status in _LIVE_STATUSES:
            run_id = str(run_id)
            return None if run_id in _UNUSABLE_IDS or len(run_id) > _ID_LIMIT else run_id
        if status not in ENDED_STATUSES:
            return None
        return Turn(
            status=status,
            output=turn.get("output"),
            error=error_text(turn.get("error")),
            run_id=run_id,
            turn_id=turn.get("id"),
            usage=turn.get("usage"),
        )
    except (ValueError, KeyError, TypeError):
        return None
