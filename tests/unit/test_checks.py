"""The check kinds: each passes and fails as PRODUCT.md says, with a reason worth reading."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from passk_tui.core.attempt import Verdict
from passk_tui.core.checks.kinds import Check, compile_check
from passk_tui.core.errors import InputError
from tests.support.judging import verdict_of

WHERE = "cases.toml: line 3: case 'x': check"


def make(spec: dict[str, Any], base_dir: Path = Path(".")) -> Check:
    return compile_check(spec, WHERE, base_dir)


def judge(spec: dict[str, Any], output: Any) -> Verdict:
    return verdict_of(make(spec), output)


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


def python_check(code: str, tmp_path: Path, **options: Any) -> Check:
    return make({"command": [sys.executable, "-c", code], **options}, tmp_path)


def test_command_gets_the_answer_on_stdin_and_passes_on_exit_0(tmp_path: Path) -> None:
    check = python_check("import sys; sys.exit(sys.stdin.read() != 'Grüße 👍')", tmp_path)
    assert verdict_of(check, "Grüße 👍").passed
    assert verdict_of(check, {"a": 1}).reason == "command exited 1"


def test_command_gets_the_answer_untrimmed_as_the_agent_gave_it(tmp_path: Path) -> None:
    # A HumanEval completion starts with four spaces: trimmed, it is no longer a function body.
    completion = "    return a + b\n"
    check = python_check(f"import sys; sys.exit(sys.stdin.read() != {completion!r})", tmp_path)
    assert verdict_of(check, completion).passed
    assert not verdict_of(check, completion.strip()).passed


def test_command_failure_reason_is_the_stderr_tail(tmp_path: Path) -> None:
    code = "import sys; print('noise', file=sys.stderr); sys.exit('wrong answer: ' + input())"
    check = python_check(code, tmp_path)
    assert verdict_of(check, "42").reason == "command exited 1: wrong answer: 42"


def test_command_runs_in_the_cases_folder_with_a_relative_script(tmp_path: Path) -> None:
    (tmp_path / "checks").mkdir()
    script = tmp_path / "checks" / "is_cwd.py"
    script.write_text("import os, sys\nsys.exit(os.getcwd() != sys.stdin.read())\n")
    check = make({"command": [sys.executable, "checks/is_cwd.py"]}, tmp_path)
    assert verdict_of(check, str(tmp_path.resolve())).passed


def test_command_resolves_a_relative_program_against_the_cases_folder(tmp_path: Path) -> None:
    (tmp_path / "checks").mkdir()
    script = tmp_path / "checks" / "ok.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    check = make({"command": ["checks/ok.sh"]}, tmp_path)
    assert verdict_of(check, "anything").passed


def test_command_program_that_is_not_executable_is_bad_input_at_load(tmp_path: Path) -> None:
    (tmp_path / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(InputError) as caught:
        make({"command": ["./check.sh"]}, tmp_path)
    assert str(caught.value) == f"{WHERE}: command not executable: ./check.sh"


def test_command_timeout_is_its_own_and_defaults_to_60_s(tmp_path: Path) -> None:
    check = python_check("import time; time.sleep(30)", tmp_path, timeout=0.2)
    assert verdict_of(check, "x").reason == "command timed out after 0.2 s"
    assert python_check("pass", tmp_path).timeout == 60


def sleeper(tmp_path: Path, **options: Any) -> tuple[Check, Path]:
    """A check that writes its pid, then sleeps a minute; the pid file says it started."""
    pid_file = tmp_path / "pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    return python_check(code, tmp_path, **options), pid_file


def test_command_is_bounded_by_the_attempts_deadline_and_killed(tmp_path: Path) -> None:
    check, pid_file = sleeper(tmp_path)
    verdict = verdict_of(check, "x", seconds=0.5)
    assert verdict.reason == "command still running at the attempt's deadline"
    assert not Path(f"/proc/{pid_file.read_text()}").exists()


async def test_command_cancelled_with_its_attempt_is_killed_and_reaped(tmp_path: Path) -> None:
    check, pid_file = sleeper(tmp_path)
    loop = asyncio.get_running_loop()
    judging = asyncio.create_task(check.judge("x", loop.time() + 120))
    while not pid_file.exists() or not pid_file.read_text():
        await asyncio.sleep(0.02)
    judging.cancel()
    with pytest.raises(asyncio.CancelledError):
        await judging
    assert not Path(f"/proc/{pid_file.read_text()}").exists()


# -- bounded regexes and nesting ------------------------------------------------


def test_regex_the_issue_froze_on_is_answered(tmp_path: Path) -> None:
    assert judge({"regex": "^(a+)+$"}, "a" * 36 + "!").reason == "no match for /^(a+)+$/"


async def test_catastrophic_regex_gives_up_at_the_deadline_leaving_the_loop_free() -> None:
    check = make({"regex": "^(a|a)+$"})
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    verdict = await check.judge("a" * 40 + "!", asyncio.get_running_loop().time() + 0.5)
    ticker.cancel()
    assert verdict.reason == "regex /^(a|a)+$/ still searching at the attempt's deadline"
    assert ticks >= 3  # the event loop kept running while the search went on


def nested(kind_of: Any, depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = kind_of(value)
    return value


def test_checks_nested_5000_deep_are_one_line_of_bad_input() -> None:
    spec = nested(lambda inner: {"all": [inner]}, 5000, {"equals": "x"})
    assert compile_error(spec) == f"{WHERE}: all/any nested more than 64 deep"
    assert make(nested(lambda inner: {"any": [inner]}, 63, {"equals": "x"})).spec


def test_schemas_nested_3000_deep_are_one_line_of_bad_input() -> None:
    schema = nested(lambda inner: {"items": inner}, 3000, {"type": "string"})
    assert compile_error({"json": schema}) == f"{WHERE}.json: schema nested more than 64 deep"
    deep_property = nested(lambda inner: {"properties": {"a": inner}}, 3000, {})
    assert compile_error({"json": deep_property}).endswith("schema nested more than 64 deep")


def test_an_answer_nested_100000_deep_is_wrong_not_a_crash() -> None:
    answer = "[" * 100_000 + "]" * 100_000
    assert judge({"json": True}, answer).reason == "answer nested too deep to check"


# -- all / any ----------------------------------------------------------------


def test_all_gives_the_first_failing_reason() -> None:
    spec = {"all": [{"contains": "a"}, {"contains": "b"}, {"contains": "c"}]}
    assert judge(spec, "abc").passed
    assert judge(spec, "a").reason == "'b' not found in answer"


def test_any_lists_every_reason_when_none_passed() -> None:
    spec = {"any": [{"equals": "yes"}, {"number": 1}]}
    assert judge(spec, "1.0").passed
    assert judge(spec, "no").reason == "none passed: expected 'yes', got 'no'; not a number: 'no'"


def test_nested_groups_carry_their_own_ignore_case_and_commands(tmp_path: Path) -> None:
    spec = {
        "all": [
            {"any": [{"equals": "OK", "ignore_case": True}, {"regex": "^fine"}]},
            {"any": [{"command": [sys.executable, "-c", "pass"]}]},
        ]
    }
    check = make(spec, tmp_path)
    assert verdict_of(check, "ok").passed
    assert verdict_of(check, "fine by me").passed
    assert verdict_of(check, "Fine").reason == (
        "none passed: expected 'OK', got 'Fine'; no match for /^fine/"
    )


def test_only_checks_that_may_wait_are_judged_apart(tmp_path: Path) -> None:
    """The engine gives a check that may wait a task of its own (a cancel reaches it)."""
    assert not make({"all": [{"equals": "a"}, {"any": [{"number": 1}, {"json": True}]}]}).waits
    assert make({"regex": "a"}).waits
    assert make({"any": [{"equals": "a"}, {"command": [sys.executable, "-c", "pass"]}]}).waits


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
            "json, command, tool_called, judge, all, any)",
        ),
        ("391", "must be a table with one check kind, got string"),
        ({"equals": 391}, "equals must be a string, got integer"),
        ({"contains": ""}, "the text to look for must not be empty"),
        ({"one_of": []}, "one_of must not be empty"),
        ({"one_of": ["a", 1]}, "one_of must be a list of strings"),
        ({"number": "1"}, "number must be a finite number, got '1'"),
        ({"number": float("nan")}, "number must be a finite number, got nan"),
        ({"number": 10**400}, "number must be a finite number, got an integer too large"),
        ({"equals": "1", "timeout": 5}, "timeout goes only with command"),
        (
            {"command": ["true"], "timeout": 0},
            "timeout must be a positive number of seconds, got 0",
        ),
        (
            {"command": ["no-such-program-passk"]},
            "command not found on PATH: no-such-program-passk",
        ),
        ({"command": ["./missing.sh"]}, "command not found: ./missing.sh"),
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
    assert compile_error({"regex": "(ab"}) == (f"{WHERE}: bad regex '(ab': missing ) at position 3")
