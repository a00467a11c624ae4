"""Outside text on a terminal: controls, bidi overrides and lone surrogates shown as escapes."""

from __future__ import annotations

import pytest

from passk_tui.cli import say
from passk_tui.core.table import plain_columns
from passk_tui.core.terminal_text import terminal_safe


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
