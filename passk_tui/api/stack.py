"""``passk_tui.Stack``: an agent on a stack, as the API is given one."""

from __future__ import annotations

from passk_tui.core.inputs.agent_definition import public_url


class Stack:
    """An agent on a stack: its address, its id there and the key (``PASSK_KEY`` when None).

    The key is kept for the requests and never shown: not in ``repr``, not in any error.
    """

    __slots__ = ("agent_id", "key", "url")

    def __init__(self, url: str, agent_id: str, *, key: str | None = None) -> None:
        self.url = url
        self.agent_id = agent_id
        self.key = key

    def __repr__(self) -> str:
        key = "set" if self.key else "unset"
        return f"Stack({public_url(self.url)!r}, {self.agent_id!r}, key={key})"
