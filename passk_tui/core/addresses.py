"""HTTP addresses the user gives (a stack's, an `openai` endpoint's), checked before any use.

An address with a user or password in it is refused, not cleaned: both take a
bearer key instead, so credentials in the address are a mistake, and keeping
them quietly would store and show a secret while dropping them quietly would
send requests the user did not ask for. No message quotes the credentials.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from passk_tui.core.terminal_text import first_unsafe

#: ``user:password@`` at the start of an address (with or without its scheme).
_USERINFO = re.compile(r"^((?:[^:/?#]+:)?//)?[^/?#]*@")


def address_problem(text: str, credentials: str) -> str | None:
    """What is wrong with ``text`` as an http:// or https:// address, or None.

    ``credentials`` is the problem said for an address holding a user or password
    (where the key goes instead). Every other problem quotes the address without them.
    """
    shown = _USERINFO.sub(r"\1", text)
    if any(ch.isspace() for ch in text) or first_unsafe(text):
        return f"{shown!r} holds spaces or control characters"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        return f"{shown!r} is not a valid address ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{shown!r} is not an http:// or https:// address"
    if parts.username is not None or parts.password is not None:
        return credentials
    if port == 0:
        return f"{shown!r}: port 0 is not a port"
    return None
