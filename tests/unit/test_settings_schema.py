"""The settings schema is the one list: every face reaches every field it declares, no more."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from passk_tui.api.evaluate import NOT_SETTINGS, RESUMED, evaluate_async
from passk_tui.cli.flags import build_parser, parse
from passk_tui.core.errors import ExitCode, InputError
from passk_tui.core.inputs.schema import BY_NAME, FIELDS, FORM_ORDER, Resume, form_fields
from passk_tui.core.inputs.settings import Settings
from passk_tui.evaluations.resume_rules import BUDGETS, GROWING, MEASURED, RUNNING, STOP_RULE
from passk_tui.evaluations.settings_text import resume_changes
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
