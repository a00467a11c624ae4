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

#: What a secret is replaced with.
MASK = "***"
#: Shorter secrets are left alone: they would garble text and are no secret worth hiding.
MIN_SECRET = 8


class Scrubber:
    """Replaces each secret (a key, a password) with ``MASK`` in text and JSON values.

    Holds the secrets, so its repr names only how many it holds.
    """

    def __init__(self, *secrets: str | None) -> None:
        self._secrets = tuple(s for s in secrets if s and len(s) >= MIN_SECRET)

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
        """The Turn with every secret masked in its output, error, ids and usage."""
        if not self._secrets:
            return turn
        return replace(
            turn,
            output=self.value(turn.output),
            error=None if turn.error is None else self.text(turn.error),
            run_id=self.value(turn.run_id),
            turn_id=self.value(turn.turn_id),
            usage=self.value(turn.usage),
        )
