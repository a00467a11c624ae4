"""The cases-file loader: TOML and JSON Lines, and one-line errors naming file, line and problem."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from passk_tui.core.errors import InputError
from passk_tui.core.run.cases import load_cases
from tests.support.judging import verdict_of

GOOD_TOML = """\
# a comment before the first case
[[cases]]
name = "arithmetic"
input = "What is 17 * 23? Reply with the number only."
check = { equals = "391" }

[[cases]]
name = "json-shape"
input = "Return a JSON object with keys name (string) and age (integer)."
check = { json = { type = "object", required = ["name", "age"] } }

  [[cases]]  # indented, with a comment
name = "summary"
input = { document = "…", task = "summarize" }
[cases.check]
contains = "refund"
ignore_case = true
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(tmp_path: Path, *rows: Any) -> Path:
    return write(tmp_path, "cases.jsonl", "".join(json.dumps(row) + "\n" for row in rows))


def load_error(path: Path, completion_only: bool = False) -> str:
    with pytest.raises(InputError) as caught:
        load_cases(path, completion_only)
    return str(caught.value)


def test_toml_loads_cases_in_file_order_with_their_raw_check(tmp_path: Path) -> None:
    cases = load_cases(write(tmp_path, "cases.toml", GOOD_TOML))
    assert [case.name for case in cases] == ["arithmetic", "json-shape", "summary"]
    assert cases[2].input == {"document": "…", "task": "summarize"}
    assert cases[2].spec == {"contains": "refund", "ignore_case": True}
    assert cases[0].check is not None and verdict_of(cases[0].check, "391").passed
    assert cases[2].check is not None and verdict_of(cases[2].check, "A REFUND").passed


def test_jsonl_loads_one_case_per_non_blank_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "cases.jsonl",
        '{"name": "a", "input": [1, 2], "check": {"equals": "3"}}\n'
        "\n"
        '{"name": "b", "input": 7, "check": {"number": 7}}\n',
    )
    cases = load_cases(path)
    assert [(case.name, case.input) for case in cases] == [("a", [1, 2]), ("b", 7)]
    assert cases[1].spec == {"number": 7}


def test_completion_only_accepts_a_case_without_check(tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"name": "a", "input": "hi"}, {"name": "b", "input": "x", "check": None})
    cases = load_cases(path, completion_only=True)
    assert [(case.check, case.spec) for case in cases] == [(None, None), (None, None)]


def test_command_checks_run_in_the_cases_files_folder(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "marker.txt").write_text("here")
    code = "import pathlib, sys; sys.exit(not pathlib.Path('marker.txt').exists())"
    row = {"name": "a", "input": "x", "check": {"command": ["python3", "-c", code]}}
    path = folder / "cases.jsonl"
    path.write_text(json.dumps(row) + "\n")
    [case] = load_cases(path)
    assert case.check is not None and verdict_of(case.check, "x").passed


# -- file-level errors --------------------------------------------------------


def test_missing_file_uses_the_path_as_given(tmp_path: Path) -> None:
    path = tmp_path / "cases.toml"
    assert load_error(path) == f"{path}: no such file"


def test_unknown_suffix_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.yaml", "")
    assert load_error(path) == f"{path}: a cases file ends in .toml or .jsonl, not '.yaml'"


def test_toml_syntax_error_names_the_line_once(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.toml", '[[cases]]\nname = "a"\ninput = \n')
    assert load_error(path) == f"{path}: line 3: invalid TOML: Invalid value"


def test_toml_error_at_end_of_file_names_the_last_line(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.toml", '[[cases]]\nname = "a\n')
    assert load_error(path) == f"{path}: line 2: invalid TOML: Illegal character '\\n'"
    path = write(tmp_path, "cases.toml", "[[cases]]\nname = [1,\n")
    assert load_error(path) == f"{path}: line 2 (end of file): invalid TOML: Invalid value"


def test_no_cases_at_all(tmp_path: Path) -> None:
    assert load_error(write(tmp_path, "cases.toml", "# nothing yet\n")).endswith(
        "cases.toml: no cases"
    )
    assert load_error(write(tmp_path, "cases.jsonl", "\n  \n")).endswith("cases.jsonl: no cases")


def test_toml_top_level_typo_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.toml", '[[case]]\nname = "a"\n')
    assert load_error(path) == (
        f"{path}: unknown top-level key 'case' (cases go in [[cases]] tables)"
    )


def test_jsonl_broken_line_names_the_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "cases.jsonl",
        '{"name": "a", "input": "x", "check": {"equals": "1"}}\n\n{"name": \n',
    )
    assert load_error(path) == f"{path}: line 3: not valid JSON: Expecting value at column 10"


def test_jsonl_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.jsonl", '["a", "x"]\n')
    assert load_error(path) == (
        f"{path}: line 1: a case must be an object with name, input and check, got array"
    )


# -- case-level errors --------------------------------------------------------


def toml_with_second_case(tmp_path: Path, second: str) -> Path:
    first = '[[cases]]\nname = "first"\ninput = "x"\ncheck = { equals = "1" }\n\n'
    return write(tmp_path, "cases.toml", first + "[[cases]]\n" + second)


def test_duplicate_name_names_both_lines(tmp_path: Path) -> None:
    path = toml_with_second_case(
        tmp_path, 'name = "first"\ninput = "y"\ncheck = { equals = "2" }\n'
    )
    assert load_error(path) == f"{path}: line 6: case 'first': duplicate name (first at line 1)"


def test_case_without_input(tmp_path: Path) -> None:
    path = toml_with_second_case(tmp_path, 'name = "x"\ncheck = { equals = "2" }\n')
    assert load_error(path) == f"{path}: line 6: case 'x': no input"


def test_case_without_name_or_with_a_bad_name(tmp_path: Path) -> None:
    path = toml_with_second_case(tmp_path, 'input = "y"\ncheck = { equals = "2" }\n')
    assert load_error(path) == f"{path}: line 6: case has no name"
    path = jsonl(tmp_path, {"name": 3, "input": "y", "check": {"equals": "2"}})
    assert load_error(path) == f"{path}: line 1: name must be a non-empty string, got 3"
    path = jsonl(tmp_path, {"name": " ", "input": "y", "check": {"equals": "2"}})
    assert load_error(path) == f"{path}: line 1: name must be a non-empty string, got ' '"


def test_case_without_check_suggests_completion_only(tmp_path: Path) -> None:
    path = toml_with_second_case(tmp_path, 'name = "x"\ninput = "y"\n')
    assert load_error(path) == (
        f"{path}: line 6: case 'x': no check (add one, or pass --completion-only)"
    )


def test_unknown_case_key(tmp_path: Path) -> None:
    path = toml_with_second_case(tmp_path, 'name = "x"\ninput = "y"\nchek = { equals = "2" }\n')
    assert (
        load_error(path) == f"{path}: line 6: case 'x': unknown key 'chek' (did you mean 'check'?)"
    )


def test_unknown_check_kind_and_nested_path(tmp_path: Path) -> None:
    """A check's error names the check's own line (9), not its case's `[[cases]]` (6)."""
    path = toml_with_second_case(tmp_path, 'name = "x"\ninput = "y"\ncheck = { equal = "2" }\n')
    assert load_error(path) == (
        f"{path}: line 9: case 'x': check: unknown kind 'equal' (did you mean 'equals'?)"
    )
    row = {"name": "x", "input": "y", "check": {"all": [{"equals": "a"}, {"number": "1"}]}}
    path = jsonl(tmp_path, row)
    assert load_error(path) == (
        f"{path}: line 1: case 'x': check.all[1]: number must be a finite number, got '1'"
    )


@pytest.mark.parametrize(
    ("table", "line"),
    [
        ('\n# the check, below\ncheck = { regex = "(" }\n', 11),
        ('check.regex = "("\n', 9),
        ('timeout = 2\n\n[cases.check]\nregex = "("\n', 11),
        ('[ cases . "check" ]\nregex = "("\n', 9),
    ],
)
def test_a_checks_error_names_the_checks_own_line(tmp_path: Path, table: str, line: int) -> None:
    path = toml_with_second_case(tmp_path, f'name = "x"\ninput = "y"\n{table}')
    assert load_error(path).startswith(f"{path}: line {line}: case 'x': check: bad regex '('")
    # The case's own problems still name its `[[cases]]` line.
    path = toml_with_second_case(tmp_path, f'name = "x"\ninput = "y"\nchek = 1\n{table}')
    assert load_error(path).startswith(f"{path}: line 6: case 'x': unknown key 'chek'")


def test_bad_regex_names_the_case(tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"name": "rx", "input": "y", "check": {"regex": "[a-"}})
    assert load_error(path) == (
        f"{path}: line 1: case 'rx': check: bad regex '[a-': "
        "unterminated character set at position 3"
    )


def test_toml_date_input_is_refused(tmp_path: Path) -> None:
    path = toml_with_second_case(
        tmp_path, 'name = "x"\ninput = 2024-01-01\ncheck = { equals = "2" }\n'
    )
    assert load_error(path) == (
        f"{path}: line 6: case 'x': input must be a JSON value (quote dates, no nan/inf)"
    )


def test_inline_toml_array_names_cases_by_index(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.toml", 'cases = [{ name = "a", input = "x" }]\n')
    assert load_error(path) == (
        f"{path}: cases[0]: case 'a': no check (add one, or pass --completion-only)"
    )


def _load_seconds(tmp_path: Path, count: int) -> float:
    """The best of three loads of a file of ``count`` cases with nested checks, in this
    process's CPU seconds (other processes on a loaded machine do not count)."""
    blocks = [
        f'[[cases]]\nname = "case-{i}"\ninput = "What is {i} + 1?"\n'
        f'check = {{ any = [{{ number = {i + 1} }}, {{ contains = "{i + 1}" }}] }}\n'
        for i in range(count)
    ]
    path = write(tmp_path, f"cases-{count}.toml", "\n".join(blocks))
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        cases = load_cases(path)
        best = min(best, time.process_time() - started)
    assert len(cases) == count
    return best


def test_loading_cases_grows_linearly(tmp_path: Path) -> None:
    """Ten times the cases costs about ten times the time, not a hundred (a ratio, not a clock)."""
    ratio = _load_seconds(tmp_path, 10_000) / _load_seconds(tmp_path, 1_000)
    assert ratio < 30, f"10x the cases took {ratio:.1f}x the time"


# -- names: one line of plain text, unique as a reader sees them ---------------------------


@pytest.mark.parametrize(
    ("name", "shown"),
    [("a\nb", "\\n"), ("red\x1b[31m", "\\x1b"), ("nul\x00", "\\x00"), ("abc\u202edef", "\\u202e")],
)
def test_a_control_character_in_a_name_is_refused_naming_the_line(
    tmp_path: Path, name: str, shown: str
) -> None:
    path = jsonl(tmp_path, {"name": "fine", "input": "x", "check": {"equals": "x"}})
    with path.open("a") as out:
        out.write(json.dumps({"name": name, "input": "x", "check": {"equals": "x"}}) + "\n")
    message = load_error(path)
    assert message.startswith(f"{path}: line 2: case ")
    assert f"holds a control character ({shown})" in message
    assert "\n" not in message and "\x1b" not in message and "\u202e" not in message


@pytest.mark.parametrize(
    ("first", "second"),
    [("caf\u00e9", "cafe\u0301"), ("ab", "a\u200bb"), ("flag", "fl\u200dag\ufeff")],
    ids=["nfc", "zero-width-space", "zero-width-joiner-and-bom"],
)
def test_names_equal_under_nfc_or_but_for_zero_width_characters_are_duplicates(
    tmp_path: Path, first: str, second: str
) -> None:
    row = {"input": "x", "check": {"equals": "x"}}
    path = jsonl(tmp_path, {"name": first, **row}, {"name": second, **row})
    message = load_error(path)
    assert message.startswith(
        f"{path}: line 2: case {second!r}: the same name as {first!r} at line 1"
    )


def test_distinct_names_with_accents_and_emoji_still_load(tmp_path: Path) -> None:
    row = {"input": "x", "check": {"equals": "x"}}
    names = [
        "caf\u00e9",
        "cafe",
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        "\u00c5ngstr\u00f6m",
    ]
    path = jsonl(tmp_path, *({"name": n, **row} for n in names))
    assert [c.name for c in load_cases(path)] == names
