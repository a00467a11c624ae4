"""HTTP addresses the user gives (a stack's, an `openai` endpoint's), checked before any use.

An address with a user or password in it is refused, not cleaned: both take a
bearer key instead, so credentials in the address are a mistake, and keeping
them quietly would store and show a secret while dropping them quietly would
send requests the user did not ask for. No message quotes the credentials.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from passk_tui.core.errors import InputError
from passk_tui.core.text.terminal_text import first_unsafe

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
    return _host_problem(text, parts.hostname, shown)


def _host_problem(text: str, hostname: str, shown: str) -> str | None:
    """Why the HTTP client or the resolver would refuse the address's host, or None.

    Both raise only once the first request is made, mid-evaluation and as a traceback:
    an empty or 64-character label (``a..b``), ``xn--``, ``999.1.1.1``, ``☃.com``.
    """
    import httpx  # here, not at the top: only an address needs it, and its requests will too

    try:
        # The client's own parse (IDNA 2008, IPv4 octets), then the resolver's (IDNA 2003).
        httpx.URL(text).host.encode("idna").decode("idna")
    except (httpx.InvalidURL, UnicodeError):
        return f"{shown!r}: the host {hostname[:200]!r} is not a valid host name"
    return None


#: What a stack address with a user or password in it is told.
STACK_CREDENTIALS = (
    "put no user or password in the stack address; give the key with PASSK_KEY (or --key)"
)


def parse_stack_address(text: str) -> str:
    """The stack address, checked before anything is stored or sent (InputError names no flag).

    Credentials in it are refused (``address_problem``): the stack takes a bearer key.
    """
    problem = address_problem(text, STACK_CREDENTIALS)
    if problem:
        raise InputError(problem)
    return text
