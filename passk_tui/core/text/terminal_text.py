"""Text from outside (case names, answers, errors) made safe to write to a terminal.

A raw ESC can recolour or clear the screen, a newline splits a table row, a
right-to-left override reorders what follows, and a lone UTF-16 surrogate
cannot be encoded at all. Every face writes outside text through
``terminal_safe`` (one line) or ``terminal_safe_lines`` (a box of lines: an
answer, an error), which show such characters as visible escapes instead.
"""

from __future__ import annotations

import re
import unicodedata

#: Formatting characters that reorder text (bidirectional embeddings, overrides, isolates, marks).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
#: Categories never written raw: controls (C0, DEL, C1), surrogates, line and paragraph separators.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: What a box of many lines keeps raw: its line breaks and tabs, which the widget lays out.
_LAYOUT = frozenset("\n\t")
# Everything that can be unsafe lies in these ranges: a quick test before the exact one.
_MAYBE_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


def is_unsafe(char: str) -> bool:
    """True for a character that must not reach a terminal raw (a control, a bidi override...)."""
    return char in BIDI_CONTROLS or unicodedata.category(char) in _UNSAFE_CATEGORIES


def escape(char: str) -> str:
    """A character as a visible escape: \\n, \\x1b, \\u202e, \\ud83d."""
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escaped(match: re.Match[str]) -> str:
    char = match[0]
    return escape(char) if is_unsafe(char) else char


def _escaped_but_layout(match: re.Match[str]) -> str:
    char = match[0]
    return char if char in _LAYOUT or not is_unsafe(char) else escape(char)


def terminal_safe(text: str) -> str:
    """``text`` on one line with every unsafe character shown as its escape; else unchanged."""
    if _MAYBE_UNSAFE.search(text) is None:
        return text
    return _MAYBE_UNSAFE.sub(_escaped, text)


def terminal_safe_lines(text: str) -> str:
    """``text`` with its newlines and tabs kept and every other unsafe character (a carriage
    return too: it would draw over the line) shown as its escape; else unchanged."""
    if _MAYBE_UNSAFE.search(text) is None:
        return text
    return _MAYBE_UNSAFE.sub(_escaped_but_layout, text)


def _removed(match: re.Match[str]) -> str:
    char = match[0]
    if not is_unsafe(char):
        return char
    return "\ufffd" if unicodedata.category(char) == "Cs" else ""


def without_unsafe(text: str) -> str:
    """``text`` with every unsafe character removed, a lone surrogate replaced by U+FFFD:
    for a last guard that must not change the width of what it guards (the others take no
    cell, a surrogate one; an escape would take several)."""
    if _MAYBE_UNSAFE.search(text) is None:
        return text
    return _MAYBE_UNSAFE.sub(_removed, text)


#: Longest message line: past it the middle is cut, so that a 5,000-character value typed
#: (a path, an id) leaves the start and the end of what is said about it readable.
MESSAGE_CHARS = 600


def message_line(text: str) -> str:
    """A message as one terminal-safe line of at most about MESSAGE_CHARS characters."""
    line = terminal_safe(text)
    if len(line) <= MESSAGE_CHARS:
        return line
    half = MESSAGE_CHARS // 2
    return f"{line[:half]}…{line[-half:]}"


def first_unsafe(text: str) -> str | None:
    """The first unsafe character of ``text``, or None."""
    for match in _MAYBE_UNSAFE.finditer(text):
        if is_unsafe(match[0]):
            return match[0]
    return None
