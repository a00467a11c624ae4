"""The check kinds: each passes and fails as PRODUCT.md says, with a reason worth reading."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from passk_tui.core.attempt import Verdict
from passk_tui.core.checks import Check, compile_check
from passk_tui.core.errors import InputError

WHERE = "cases.toml: line 3: case 'x': check"


def make(spec: dict[str, Any], base_dir: Path = Path(".")) -> Check:
    return compile_check(spec, WHERE, base_dir)


def judge(spec: dict[str, Any], output: Any) -> Verdict:
    return make(spec).evaluate(output)


def compile_error(spec: Any) -> str:
    with pytest.raises(InputError) as caught:
        make(spec)
    return str(caught.value)


# -- text kinds ---------------------------------------------------------------


def test_equals_trims_the_answer_and_passes_without_reason() -> None:
    assert judge({"equals": "391"}, "  391\n") == Verdict(True, None)


def test_equals_fails_saying_expected_and_got() -> None:
    assert judge({"equals": "391"}, "390") == Verdict(False, "expected '391', got '390'")


def test_equals_shortens_a_long_answer_with_an_ellipsis() -> None:
    reason = judge({"equals": "a"}, "b" * 1000).reason
    assert reason is not None
    assert reason.startswith("expected 'a', got 'bbb")
    assert reason.endswith("…'")
    assert len(reason) < 250


def test_none_output_is_the_empty_string() -> None:
    assert judge({"equals": ""}, None).passed
    assert judge({"equals": "x"}, None).reason == "expected 'x', got ''"


def test_json_output_is_compared_as_its_json_text() -> None:
    assert judge({"equals": '{"a": 1}'}, {"a": 1}).passed
    assert judge({"equals": "391"}, 391).passed
    assert judge({"equals": "true"}, True).passed
    assert judge({"contains": '"ü"'}, ["ü"]).passed  # ensure_ascii=False: no \u00fc
    assert judge({"equals": "[1, 2]"}, [1, 2, 3]).reason == "expected '[1, 2]', got '[1, 2, 3]'"


def test_contains_and_not_contains() -> None:
    assert judge({"contains": "refund"}, "We will refund you.").passed
    assert judge({"contains": "refund"}, "No.").reason == "'refund' not found in answer"
    assert judge({"not_contains": "sorry"}, "Done.").passed
    assert judge({"not_contains": "sorry"}, "so sorry").reason == "'sorry' found in answer"


def test_ignore_case_uses_casefold_for_unicode() -> None:
    assert judge({"equals": "GRÜSSE", "ignore_case": True}, "Grüße").passed
    assert not judge({"equals": "GRÜSSE"}, "Grüße").passed
    # casefold is full Unicode folding: İ folds to i + combining dot, on both sides alike.
    assert judge({"contains": "İstanbul", "ignore_case": True}, "İSTANBUL'DA").passed
    assert not judge({"contains": "İstanbul"}, "İSTANBUL'DA").passed
    assert judge({"one_of": ["YES", "NO"], "ignore_case": True}, "yes").passed
    assert judge({"not_contains": "ERROR", "ignore_case": True}, "an error").reason == (
        "'ERROR' found in answer"
    )


def test_emoji_answers_compare_exactly() -> None:
    assert judge({"equals": "👍🏽"}, " 👍🏽 ").passed
    assert judge({"equals": "👍🏽"}, "👍").reason == "expected '👍🏽', got '👍'"


def test_regex_searches_and_respects_ignore_case() -> None:
    assert judge({"regex": r"\b391\b"}, "It is 391.").passed
    assert judge({"regex": "^abc$", "ignore_case": True}, "ABC").passed
    assert judge({"regex": r"^\d+$"}, "12a").reason == r"no match for /^\d+$/"


def test_one_of() -> None:
    assert judge({"one_of": ["red", "green"]}, "green").passed
    assert judge({"one_of": ["red", "green"]}, "blue").reason == (
        "expected one of 'red', 'green', got 'blue'"
    )


# -- number -------------------------------------------------------------------


def test_number_with_default_tolerance() -> None:
    assert judge({"number": 391}, " 391 ").passed
    assert judge({"number": 391}, "391.0").passed
    assert judge({"number": 391}, 391).passed
    assert judge({"number": 391}, "390").reason == "expected 391 ± 0, got 390"


def test_number_with_tolerance_includes_the_boundary() -> None:
    assert judge({"number": 1.0, "tolerance": 0.1}, "1.1").passed
    assert judge({"number": 3.14, "tolerance": 0.01}, "3.1415").passed
    assert judge({"number": 3.14, "tolerance": 0.01}, "3.2").reason == (
        "expected 3.14 ± 0.01, got 3.2"
    )


def test_number_rejects_text_nan_and_booleans() -> None:
    assert judge({"number": 1}, "abc").reason == "not a number: 'abc'"
    assert judge({"number": 1}, "nan").reason == "not a number: 'nan'"
    assert judge({"number": 1}, True).reason == "not a number: 'true'"


# -- json ---------------------------------------------------------------------


def test_json_true_and_empty_table_only_need_valid_json() -> None:
    assert judge({"json": True}, '{"a": [1, 2]}').passed
    assert judge({"json": {}}, "[]").passed
    assert judge({"json": True}, {"already": "parsed"}).passed
    assert judge({"json": True}, "{oops").reason == (
        "not valid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)"
    )
    assert judge({"json": True}, "NaN").reason == "not valid JSON: NaN is not JSON"
    assert judge({"json": True}, None).reason == "not valid JSON: empty answer"


PERSON = {
    "json": {
        "type": "object",
        "required": ["name", "age"],
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
        },
    }
}


def test_json_schema_passes_a_conforming_value_as_text_or_as_is() -> None:
    assert judge(PERSON, '{"name": "Zoë", "age": 7, "tags": ["a"]}').passed
    assert judge(PERSON, {"name": "Zoë", "age": 7}).passed


def test_json_schema_names_the_path_of_the_first_problem() -> None:
    assert judge(PERSON, {"name": "Zoë"}).reason == "missing key 'age' at $"
    assert (
        judge(PERSON, {"name": "Zoë", "age": "7"}).reason == "$.age: expected integer, got string"
    )
    assert judge(PERSON, {"name": "Zoë", "age": 7, "tags": ["a", "c"]}).reason == (
        '$.tags[1]: expected one of "a", "b", got "c"'
    )
    assert judge(PERSON, "[1]").reason == "$: expected object, got array"


def test_json_integer_excludes_bools_and_floats_number_excludes_bools() -> None:
    integer = {"json": {"type": "integer"}}
    assert judge(integer, "3").passed
    assert judge(integer, "3.0").reason == "$: expected integer, got number"
    assert judge(integer, "true").reason == "$: expected integer, got boolean"
    number = {"json": {"type": "number"}}
    assert judge(number, "3").passed
    assert judge(number, "3.5").passed
    assert judge(number, "false").reason == "$: expected number, got boolean"


def test_json_enum_compares_as_json_does() -> None:
    enum = {"json": {"enum": [1, None]}}
    assert judge(enum, "1.0").passed
    assert judge(enum, "null").passed
    assert judge(enum, "true").reason == "$: expected one of 1, null, got true"


def test_json_nested_items_and_odd_keys_in_paths() -> None:
    spec = {"json": {"items": {"properties": {"first name": {"type": "string"}}}}}
    assert judge(spec, [{"first name": "a"}, {}]).passed
    assert judge(spec, [{"first name": 1}]).reason == (
        '$[0]["first name"]: expected string, got integer'
    )
    assert judge(spec, {"a": 1}).reason == "$: expected array, got object"


# -- command ------------------------------------------------------------------


def python_check(code: str, tmp_path: Path) -> Check:
    return make({"command": [sys.executable, "-c", code]}, tmp_path)


def test_command_gets_the_answer_on_stdin_and_passes_on_exit_0(tmp_path: Path) -> None:
    check = python_check("import sys; sys.exit(sys.stdin.read() != 'Grüße 👍')", tmp_path)
    assert check.blocking
    assert check.evaluate("  Grüße 👍\n").passed
    assert check.evaluate({"a": 1}).reason == "command exited 1"


def test_command_failure_reason_is_the_stderr_tail(tmp_path: Path) -> None:
    code = "import sys; print('noise', file=sys.stderr); sys.exit('wrong answer: ' + input())"
    assert (
        python_check(code, tmp_path).evaluate("42").reason == "command exited 1: wrong answer: 42"
    )


def test_command_runs_in_the_cases_folder_with_a_relative_script(tmp_path: Path) -> None:
    (tmp_path / "checks").mkdir()
    script = tmp_path / "checks" / "is_cwd.py"
    script.write_text("import os, sys\nsys.exit(os.getcwd() != sys.stdin.read())\n")
    check = make({"command": [sys.executable, "checks/is_cwd.py"]}, tmp_path)
    assert check.evaluate(str(tmp_path.resolve())).passed


def test_command_resolves_a_relative_program_against_the_cases_folder(tmp_path: Path) -> None:
    (tmp_path / "checks").mkdir()
    script = tmp_path / "checks" / "ok.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    check = make({"command": ["checks/ok.sh"]}, tmp_path)
    assert check.evaluate("anything").passed


def test_command_missing_program_fails_without_crashing(tmp_path: Path) -> None:
    check = make({"command": ["no-such-program-passk"]}, tmp_path)
    assert check.evaluate("x") == Verdict(False, "command not found: no-such-program-passk")


def test_command_timeout_fails_with_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("passk_tui.core.checks.COMMAND_TIMEOUT", 0.2)
    check = python_check("import time; time.sleep(30)", tmp_path)
    assert check.evaluate("x").reason == "command timed out after 0.2 s"


# -- all / any ----------------------------------------------------------------


def test_all_gives_the_first_failing_reason() -> None:
    spec = {"all": [{"contains": "a"}, {"contains": "b"}, {"contains": "c"}]}
    assert judge(spec, "abc").passed
    assert judge(spec, "a").reason == "'b' not found in answer"
    assert not make(spec).blocking


def test_any_lists_every_reason_when_none_passed() -> None:
    spec = {"any": [{"equals": "yes"}, {"number": 1}]}
    assert judge(spec, "1.0").passed
    assert judge(spec, "no").reason == "none passed: expected 'yes', got 'no'; not a number: 'no'"


def test_nested_groups_carry_their_own_ignore_case_and_blocking(tmp_path: Path) -> None:
    spec = {
        "all": [
            {"any": [{"equals": "OK", "ignore_case": True}, {"regex": "^fine"}]},
            {"any": [{"command": [sys.executable, "-c", "pass"]}]},
        ]
    }
    check = make(spec, tmp_path)
    assert check.blocking
    assert check.evaluate("ok").passed
    assert check.evaluate("fine by me").passed
    assert check.evaluate("Fine").reason == (
        "none passed: expected 'OK', got 'Fine'; no match for /^fine/"
    )


def test_spec_is_the_table_as_written() -> None:
    spec = {"contains": "x", "ignore_case": True}
    assert make(spec).spec is spec


# -- compile errors -----------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (
            {"equals": "1", "contains": "1"},
            "has 2 kinds: equals, contains; combine them with all/any",
        ),
        ({"equal": "1"}, "unknown kind 'equal' (did you mean 'equals'?)"),
        ({"zzz": 1}, "unknown kind 'zzz'"),
        (
            {},
            "no check kind (one of equals, contains, not_contains, regex, one_of, number, "
            "json, command, all, any)",
        ),
        ("391", "must be a table with one check kind, got string"),
        ({"equals": 391}, "equals must be a string, got integer"),
        ({"contains": ""}, "the text to look for must not be empty"),
        ({"one_of": []}, "one_of must not be empty"),
        ({"one_of": ["a", 1]}, "one_of must be a list of strings"),
        ({"number": "1"}, "number must be a finite number, got '1'"),
        ({"number": float("nan")}, "number must be a finite number, got nan"),
        ({"number": 1, "tolerance": -1}, "tolerance must not be negative, got -1"),
        ({"equals": "1", "tolerance": 1}, "tolerance goes only with number"),
        ({"number": 1, "ignore_case": True}, "ignore_case means nothing with number"),
        ({"json": True, "ignore_case": False}, "ignore_case means nothing with json"),
        ({"all": [{"equals": "a"}], "ignore_case": True}, "ignore_case means nothing with all"),
        ({"equals": "a", "ignore_case": "yes"}, "ignore_case must be true or false"),
        ({"json": False}, "json must be true or a schema table, got False"),
        (
            {"json": {"type": "int"}},
            "check.json.type: 'int' is not one of object, array, string, "
            "number, integer, boolean, null",
        ),
        (
            {"json": {"minimum": 1}},
            "check.json: unknown schema key 'minimum' "
            "(supported: type, required, properties, items, enum)",
        ),
        (
            {"json": {"properties": {"a": {"enum": []}}}},
            "check.json.properties.a.enum: must be a non-empty list",
        ),
        ({"command": []}, "command must not be empty"),
        ({"command": "python3 x.py"}, "command must be a list of strings"),
        ({"all": []}, "all must be a non-empty list of checks"),
        (
            {"any": [{"equals": "a"}, {"equal": "b"}]},
            "check.any[1]: unknown kind 'equal' (did you mean 'equals'?)",
        ),
        (
            {"all": [{"any": ["x"]}]},
            "check.all[0].any[0]: must be a table with one check kind, got string",
        ),
    ],
)
def test_compile_errors_name_the_place_and_problem(spec: Any, problem: str) -> None:
    message = compile_error(spec)
    if problem.startswith("check."):
        assert message == f"{WHERE.removesuffix('check')}{problem}"
    else:
        assert message == f"{WHERE}: {problem}"


def test_bad_regex_names_the_case_and_the_regex_error() -> None:
    assert compile_error({"regex": "(ab"}) == (
        f"{WHERE}: bad regex '(ab': missing ), unterminated subpattern at position 0"
    )
