"""Keeping a key out of what a server sends back: servers and proxies sometimes echo requests.

Every target scrubs what it is given (errors, answers, ids) with one ``Scrubber``
before the engine sees it, so the key cannot reach the store, an export or the
screen by way of an echoing server.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from passk_tui.core.attempt import Turn
from passk_tui.core.errors import InputError

#: What a secret is replaced with.
MASK = "***"
#: Shorter keys are refused (``key_problem``): masking one would garble every answer that
#: happens to hold those few characters (a 1-character key: every such letter), and not
#: masking it would let a server's echo carry it into the store.
MIN_SECRET = 8


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be used as a key (said without echoing it), or None.

    A key goes into an HTTP header, so it must be visible ASCII (a newline or an
    accented letter is a paste gone wrong); and it must be long enough to mask.
    """
    if not all(0x21 <= ord(ch) <= 0x7E for ch in key):
        return (
            "the key must be visible ASCII characters only (no spaces, newlines "
            "or accented letters); check how it was copied"
        )
    if len(key) < MIN_SECRET:
        return (
            f"the key is {len(key)} characters; at least {MIN_SECRET} are needed, "
            "so that it can be masked wherever a server echoes it"
        )
    return None


class Scrubber:
    """Replaces each secret (a key, a password) with ``MASK`` in text and JSON values.

    Every non-empty secret is masked, whatever its length: keys too short to mask
    without garbling answers are refused before any target is made (``key_problem``).
    Holds the secrets, so its repr names only how many it holds.
    """

    def __init__(self, *secrets: str | None) -> None:
        self._secrets = tuple(s for s in secrets if s)

    def __repr__(self) -> str:
        return f"Scrubber({len(self._secrets)} secrets)"

    def text(self, text: str) -> str:
        """``text`` with every secret masked."""
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def value(self, value: Any) -> Any:
        """A JSON value (an answer, usage) with every secret masked in its strings and keys."""
        if isinstance(value, str):
            return self.text(value)
        if not self._secrets or value is None or isinstance(value, bool | int | float):
            return value
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            return value
        # Inside JSON text a secret appears in its escaped form, and only within strings.
        scrubbed = text
        for secret in self._secrets:
            scrubbed = scrubbed.replace(json.dumps(secret, ensure_ascii=False)[1:-1], MASK)
        return value if scrubbed == text else json.loads(scrubbed)

    def turn(self, turn: Turn) -> Turn:
        """The Turn with every secret masked in its output, error, ids, usage and finish reason."""
        if not self._secrets:
            return turn
        return replace(
            turn,
            output=self.value(turn.output),
            error=None if turn.error is None else self.text(turn.error),
            run_id=self.value(turn.run_id),
            turn_id=self.value(turn.turn_id),
            usage=self.value(turn.usage),
            finish_reason=self.value(turn.finish_reason),
        )


def parse_key(key: str) -> str:
    """A stack key that can go into an HTTP header and is long enough to mask
    (``key_problem``); the InputError never echoes the key."""
    problem = key_problem(key)
    if problem:
        raise InputError(problem)
    return key
