"""Outside text on a terminal: controls, bidi overrides and lone surrogates shown as escapes."""

from __future__ import annotations

import pytest

from passk_tui.cli.output import say
from passk_tui.core.render.table import plain_columns
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines, without_unsafe


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (
            "plain text, café, 日本, \U0001f468\u200d\U0001f469",
            "plain text, café, 日本, \U0001f468\u200d\U0001f469",
        ),
        ("two\nlines\r\tand a tab", "two\\nlines\\r\\tand a tab"),
        ("\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07"),
        ("nul\x00 del\x7f c1\x9b", "nul\\x00 del\\x7f c1\\x9b"),
        ("abc\u202edcba\u2066x\u2069", "abc\\u202edcba\\u2066x\\u2069"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("I love \ud83d", "I love \\ud83d"),
    ],
)
def test_terminal_safe_escapes_only_what_a_terminal_would_act_on(raw: str, shown: str) -> None:
    assert terminal_safe(raw) == shown


def test_a_table_row_stays_one_row_whatever_its_cells_hold() -> None:
    table = plain_columns([("case", "n"), ("a\nb\x1b[31m", "1")])
    cell = "a\\nb\\x1b[31m"
    assert table.splitlines() == [
        "case".ljust(len(cell)) + "  n",
        "-" * len(cell) + "  -",
        f"{cell}  1",
    ]


def test_a_message_is_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    say("stack said: \x1b[2Jgone\nfor good \u202e")
    assert capsys.readouterr().err == "passk-tui: stack said: \\x1b[2Jgone\\nfor good \\u202e\n"


#: Every character a terminal would act on: C0, DEL, C1, and the bidi controls.
CONTROLS = [chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))]
BIDI = [chr(c) for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))]


@pytest.mark.parametrize("char", CONTROLS + BIDI, ids=lambda char: f"U+{ord(char):04X}")
def test_every_control_and_bidi_character_is_escaped_removed_or_kept_as_layout(char: str) -> None:
    code = ord(char)
    escaped = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(
        char, f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    )
    assert terminal_safe(f"a{char}b") == f"a{escaped}b"
    kept = char in "\n\t"  # a box of lines lays them out; everything else is escaped
    assert terminal_safe_lines(f"a{char}b") == (f"a{char}b" if kept else f"a{escaped}b")
    assert without_unsafe(f"a{char}b") == "ab"


def test_lines_keep_their_breaks_and_tabs_only() -> None:
    answer = "def f():\n\treturn 1\r\n\x1b]52;c;aGk=\x07\u202e"
    assert terminal_safe_lines(answer) == "def f():\n\treturn 1\\r\n\\x1b]52;c;aGk=\\x07\\u202e"


def test_the_guard_keeps_the_width_a_surrogate_takes() -> None:
    assert without_unsafe("I love \ud83d\x1b[31m") == "I love \ufffd[31m"


def test_safe_text_is_the_same_object() -> None:
    text = "plain, café, 日本, [red]markup is not ours to read[/red]"
    assert terminal_safe(text) is text
    assert terminal_safe_lines(text) is text
    assert without_unsafe(text) is text
