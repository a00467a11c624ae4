"""The settings schema is the one list: every face reaches every field it declares, no more."""

from __future__ import annotations

import dataclasses
import inspect
from fractions import Fraction

import pytest

from passk_tui.api.evaluate import NOT_SETTINGS, RESUMED, evaluate_async
from passk_tui.cli.flags import build_parser, parse
from passk_tui.core.errors import ExitCode, InputError
from passk_tui.core.inputs.schema import (
    BY_NAME,
    FIELDS,
    FORM_ORDER,
    Field,
    Kind,
    Origin,
    Resume,
    form_fields,
)
from passk_tui.core.inputs.settings import Settings
from passk_tui.evaluations.resume_rules import BUDGETS, GROWING, MEASURED, RUNNING, STOP_RULE
from passk_tui.evaluations.settings_text import resume_changes, validate
from passk_tui.store.rows import settings_row
from passk_tui.tui.screens.configure.form import SWITCHES, TEXT_FIELDS, blank_form

#: Settings attributes no flag sets: the price is the two price fields; ``extended`` is the
#: session's record that attempts were added after some were seen.
NOT_FROM_A_FIELD = {"price", "extended"}


def test_every_field_is_a_flag_with_its_help_and_group() -> None:
    parser = build_parser()
    options = {s: a for a in parser._actions for s in a.option_strings}
    for field in FIELDS:
        action = options[field.flag]
        assert action.help == field.help
        assert action.metavar == field.metavar
        group = next(g for g in parser._action_groups if action in g._group_actions)
        assert group.title == field.group.value, field.name
        assert action.dest == field.name


def test_the_api_keywords_are_the_schemas() -> None:
    signature = inspect.signature(evaluate_async)
    keywords = {p.name for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY}
    declared = {f.keyword for f in FIELDS if f.keyword is not None}
    assert keywords - NOT_SETTINGS == declared
    assert not NOT_SETTINGS & declared


def test_the_form_shows_every_labelled_field_once() -> None:
    labelled = {f.name for f in FIELDS if f.label is not None}
    assert sorted(FORM_ORDER) == sorted(labelled)
    assert [*TEXT_FIELDS, *SWITCHES] == [f.name for f in form_fields()]
    assert set(blank_form()) == labelled


def test_every_setting_is_declared_and_stored() -> None:
    attributes = {f.name for f in dataclasses.fields(Settings)} - NOT_FROM_A_FIELD
    assert attributes == {f.setting for f in FIELDS if f.setting is not None}
    row = settings_row(Settings(agent="a", version=1, cases_path="c"))
    columns = {f.column for f in FIELDS if f.column is not None}
    assert columns <= row.keys()
    stored_apart = {"extended"}  # not a field's: see NOT_FROM_A_FIELD
    assert row.keys() - columns == stored_apart


def test_every_stored_field_has_a_resume_rule() -> None:
    ruled = {*MEASURED, *GROWING, *STOP_RULE, *BUDGETS, *RUNNING}
    settings = {f.setting for f in FIELDS if f.setting is not None}
    assert settings == ruled
    no_keyword = {f.setting for f in FIELDS if f.keyword is None}  # the agent, Stack(url)
    prices = {f.name for f in FIELDS if f.resume is Resume.PRICE}
    assert set(RESUMED.values()) == (ruled - set(MEASURED) - no_keyword) | prices
    for field in FIELDS:
        if field.resume is Resume.MEASURED:
            assert MEASURED[field.setting or ""] == field.flag


PARSED_ON_RESUME = [f.name for f in FIELDS if f.parse and f.resume is not Resume.NOT_STORED]


@pytest.mark.parametrize("name", PARSED_ON_RESUME)
def test_a_resume_names_a_bad_field_by_its_flag(name: str) -> None:
    flag = BY_NAME[name].flag
    with pytest.raises(InputError) as refused:
        resume_changes(parse(["--resume", "last", flag, ""]))  # bad for every parser
    assert str(refused.value).startswith(f"{flag}: ")


def test_help_lists_every_exit_status_from_the_enum() -> None:
    text = " ".join(build_parser().format_help().split())
    for code in ExitCode:
        if code is not ExitCode.SIGNALLED:  # 128 + the signal: no status of its own
            assert f" {int(code)} " in text, code


#: A good typed value of each kind, as ``evaluate()`` gives it (``attempts`` is 6 beside it).
TYPED = {
    Kind.WHOLE: 6,
    Kind.NUMBER: 0.5,
    Kind.RATIO: Fraction(1, 2),
    Kind.MONEY: Fraction(5, 2),
    Kind.SWITCH: True,
}
#: What a field needs beside it to be valid (typed, as the API gives it).
BESIDE: dict[str, dict[str, object]] = {
    "precision": {"max_attempts": 6},
    "family_wise": {"require": Fraction(1, 2), "confidence": 0.9},
    "price_in": {"price_out": Fraction(1)},
    "price_out": {"price_in": Fraction(1)},
}
GOOD = {"agent": "a", "version": 1, "cases": "c.toml", "attempts": 6}
KEYWORDS = [f for f in FIELDS if f.keyword is not None and f.kind is not Kind.TEXT]


@pytest.mark.parametrize("field", KEYWORDS, ids=[f.name for f in KEYWORDS])
def test_every_keyword_takes_its_value_typed(field: Field) -> None:
    given = TYPED[field.kind]
    check = validate(GOOD | BESIDE.get(field.name, {}) | {field.name: given}, Origin.API)
    assert check.first_line() is None
    assert check.values[field.name] == given


PARSED = [f for f in FIELDS if f.parse is not None]


@pytest.mark.parametrize("origin", list(Origin))
@pytest.mark.parametrize("field", PARSED, ids=[f.name for f in PARSED])
def test_a_bad_field_is_named_as_each_face_calls_it(field: Field, origin: Origin) -> None:
    check = validate(GOOD | {field.name: ""}, origin)  # bad for every parser
    words = check.errors[field.name]
    assert check.lines[field.name] == f"{field.called(origin)}: {words}"
    expected = {Origin.CLI: field.flag, Origin.API: field.keyword, Origin.FORM: field.label}
    assert field.called(origin) == (expected[origin] or field.name)


def test_the_api_is_worded_by_keyword_the_form_by_label_the_cli_by_flag() -> None:
    lines = {o: validate(GOOD | {"attempts": 0}, o).first_line() for o in Origin}
    assert lines == {
        Origin.CLI: "--attempts: must be at least 1, got 0",
        Origin.API: "attempts: must be at least 1, got 0",
        Origin.FORM: "Attempts: must be at least 1, got 0",
    }
    lines = {o: validate(GOOD | {"budget_cost": "2", "stack": "http://s"}, o).first_line()
             for o in Origin}  # fmt: skip
    assert lines[Origin.CLI] == "--budget-cost: needs prices (--price-in and --price-out)"
    assert lines[Origin.API] == "budget_cost: needs prices (price_in and price_out)"
    assert lines[Origin.FORM] == "Budget cost: needs prices (Price in and Price out)"


@pytest.mark.parametrize(
    ("given", "line"),
    [
        ({"attempts": 2.5}, "attempts: must be a whole number, got 2.5"),
        ({"attempts": True}, "attempts: must be a whole number, got boolean"),
        ({"timeout": float("inf")}, "timeout: must be a positive number of seconds, got inf"),
        ({"require": 1.5}, "require: must be between 0 and 1, got 1.5"),
        ({"confidence": "x"}, "confidence: must be a number between 0 and 1, got 'x'"),
        ({"k": 2**63}, "k: must be at most 9223372036854775807, got a 19-digit number"),
        (
            {"price_in": Fraction(1, 3), "price_out": 1},
            "price_in: must be a price per million tokens in decimals, got 1/3",
        ),
        ({"budget_cost": 0}, "budget_cost: must be more than 0"),
        ({"completion_only": "no"}, "completion_only: must be True or False, got string"),
    ],
)
def test_typed_values_meet_their_flags_rules(given: dict[str, object], line: str) -> None:
    assert validate(GOOD | given, Origin.API).first_line() == line


def test_a_float_is_taken_as_its_shortest_decimal() -> None:
    check = validate(GOOD | {"price_in": 0.15, "price_out": 0.6, "budget_cost": 2.5}, Origin.API)
    assert check.settings is not None and check.settings.price is not None
    assert check.settings.price.texts() == ("0.15", "0.6")
    assert check.settings.budget_cost == Fraction(5, 2)
