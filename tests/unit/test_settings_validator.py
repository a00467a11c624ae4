"""One validator from text to Settings: the flags and the Configure form say the same per field."""

from __future__ import annotations

from pathlib import Path

import pytest

from passk_tui.cli.flags import parse
from passk_tui.core.errors import InputError
from passk_tui.evaluations.settings_text import (
    flag_name,
    settings_from_args,
    stack_key,
    validate,
)
from passk_tui.tui.screens.configure.form import blank_form, check_form

#: A field, a bad text for it, and words its message must hold (the same on both faces).
BAD = [
    ("attempts", "0", "must be at least 1"),
    ("attempts", "many", "whole number"),
    ("k", "9", "between 1 and the attempts (5)"),
    ("require", "1.5", "between 0 and 1"),
    ("confidence", "1", "strictly between 0 and 1"),
    ("concurrency", "0", "must be between 1 and"),
    ("timeout", "-1", "positive number"),
    ("version", "v2", "whole number"),
    ("agent", "a\x1bb", "control character"),
    ("agent", "x" * 201, "at most 200 characters"),
    ("stack", "ftp://x", "http:// or https://"),
    ("stack", "http://user:secret@stack.example", "no user or password"),
    ("stack", "http://a b", "spaces or control characters"),
    ("stack", "http://a..b", "not a valid host name"),
    ("key", "short", "at least"),
    ("key", "sk-no spaces-1234567890", "visible ASCII"),
]
#: What makes every other field valid on both faces.
GOOD = {"agent": "scripted", "version": "1", "cases": "cases.toml"}


def flags_line(name: str, value: str) -> str:
    """What the CLI says when ``name`` alone is bad (its one line, as the error's text)."""
    texts = GOOD | {name: value}
    argv = [a for field, text in texts.items() for a in (flag_name(field), text)]
    if name == "key":
        args = parse(argv)
        with pytest.raises(InputError) as caught:
            stack_key(args, {})
        return str(caught.value)
    with pytest.raises(InputError) as caught:
        settings_from_args(parse(argv), {})
    return str(caught.value)


def form_message(name: str, value: str) -> str:
    """What the Configure form says beside ``name`` when it alone is bad."""
    values = blank_form() | GOOD | {name: value}
    return check_form(values).errors[name]


@pytest.mark.parametrize(
    ("name", "value", "words"), BAD, ids=[f"{n}={v[:20]!r}" for n, v, _ in BAD]
)
def test_flags_and_form_say_the_same_per_field(
    name: str, value: str, words: str, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no agents file, no cases file: only the texts are judged
    message = form_message(name, value)
    assert words in message
    assert flags_line(name, value) == f"{flag_name(name)}: {message}"
    assert validate(GOOD | {name: value}).errors[name] == message


def test_the_validator_names_the_source_of_a_value_from_the_environment() -> None:
    check = validate(GOOD | {"stack": "ftp://x"}, sources={"stack": "PASSK_STACK"})
    assert check.settings is None
    assert check.first_line() == f"PASSK_STACK: {check.errors['stack']}"
    with pytest.raises(InputError, match=r"^PASSK_STACK: 'ftp://x' is not an http"):
        settings_from_args(
            parse(["--agent", "a", "--version", "1", "--cases", "c"]), {"PASSK_STACK": "ftp://x"}
        )


def test_missing_fields_each_required_and_one_line_for_the_cli() -> None:
    check = validate({"attempts": "2"})
    assert list(check.errors) == ["agent", "version", "cases"]
    assert check.errors["agent"] == "required"
    assert check.first_line() == "missing --agent, --version, --cases (or use --demo)"
    assert check_form(blank_form() | {"attempts": "2"}).errors["version"] == (
        "required: the exact version number"
    )


def test_every_bad_field_is_said_at_once_in_the_order_checked() -> None:
    check = validate(GOOD | {"attempts": "0", "timeout": "x", "stack": "ftp://x"})
    assert list(check.errors) == ["attempts", "timeout", "stack"]
    assert check.first_line() == "--attempts: must be at least 1, got 0"


def test_valid_text_gives_the_settings_and_the_demo_fills_what_is_not_given() -> None:
    check = validate(GOOD | {"attempts": "4", "k": "2", "require": "0.5"})
    assert not check.errors and check.settings is not None
    assert (check.settings.attempts, check.settings.k) == (4, 2)
    demo = validate({}, demo=True)
    assert demo.settings is not None and demo.settings.agents_path is not None
    assert validate({"stack": "http://stack.example"}, demo=True).settings.agents_path is None


def test_family_wise_needs_the_confident_gate_on_both_faces() -> None:
    """--family-wise sets the confident gate's promise: alone it is refused, said per face."""
    args = parse(["--agent", "scripted", "--version", "1", "--cases", "c.toml", "--family-wise"])
    with pytest.raises(InputError) as caught:
        settings_from_args(args, {})
    assert str(caught.value) == (
        "--family-wise: needs --require and --confidence (it makes the confident gate's "
        "promise the whole suite's)"
    )
    form = blank_form() | GOOD | {"family_wise": True, "require": "0.9"}
    assert check_form(form).errors["family_wise"] == "needs require and confidence"
    assert "family_wise" not in check_form(form | {"confidence": "0.95"}).errors
    given = validate(GOOD | {"family_wise": True, "require": "0.9", "confidence": "0.95"})
    assert given.settings is not None and given.settings.family_wise
    assert validate(GOOD).settings.family_wise is False
