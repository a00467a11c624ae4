"""The check kinds: each check table is compiled once at load, then judges answers fast."""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from abc import abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from passk_tui.core.attempt import Verdict
from passk_tui.core.checks.base import (
    PASS,
    Check,
    PureCheck,
    checked_answer,
    finite_field,
    quote,
    strict_json_loads,
    string_field,
)
from passk_tui.core.checks.command import CommandCheck
from passk_tui.core.checks.json_schema import Nesting, Schema
from passk_tui.core.checks.judge import JUDGE_KEYS, JudgeCheck
from passk_tui.core.checks.tool_called import ToolCalled
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import strings
from passk_tui.core.text.mentions import near_hint, shorten, type_name
from passk_tui.core.transcript import Transcript

#: Seconds a regex may search on the event loop before the search moves to a thread of its own.
REGEX_ON_LOOP = 0.02
#: Deepest nesting of all/any: far beyond any real check, well within Python's recursion limit.
MAX_CHECK_DEPTH = 64

TEXT_KINDS = ("equals", "contains", "not_contains", "regex", "one_of")
KINDS = (*TEXT_KINDS, "number", "json", "command", "tool_called", "judge", "all", "any")
MODIFIERS = ("ignore_case", "tolerance", "timeout", "sandbox", "on", *JUDGE_KEYS)


class _TextCheck(PureCheck):
    """A check of the trimmed answer text; with ``ignore_case`` both sides are casefolded."""

    def __init__(self, spec: dict[str, Any]) -> None:
        super().__init__(spec)
        self.ignore_case: bool = spec.get("ignore_case", False)

    def fold(self, text: str) -> str:
        return text.casefold() if self.ignore_case else text

    def evaluate(self, output: Any) -> Verdict:
        text = checked_answer(output)
        return self.compare(text, self.fold(text))

    @abstractmethod
    def compare(self, text: str, compared: str) -> Verdict:
        """Judge ``compared`` (the text, casefolded when asked); quote ``text`` in reasons."""


class _Equals(_TextCheck):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.shown = string_field(spec, "equals", where)
        self.expected = self.fold(self.shown)

    def compare(self, text: str, compared: str) -> Verdict:
        if compared == self.expected:
            return PASS
        return Verdict(False, f"expected {quote(self.shown)}, got {quote(text)}")


class _Contains(_TextCheck):
    """`contains` and `not_contains`: ``present`` says which."""

    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.present = "contains" in spec
        self.shown = string_field(spec, "contains" if self.present else "not_contains", where)
        if not self.shown:
            raise InputError(f"{where}: the text to look for must not be empty")
        self.needle = self.fold(self.shown)

    def compare(self, text: str, compared: str) -> Verdict:
        if (self.needle in compared) == self.present:
            return PASS
        found = "not found in" if self.present else "found in"
        return Verdict(False, f"{quote(self.shown)} {found} answer")


class _OneOf(_TextCheck):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        options = strings(spec, "one_of", where)
        self.shown = shorten(", ".join(repr(option) for option in options))
        self.options = frozenset(self.fold(option) for option in options)

    def compare(self, text: str, compared: str) -> Verdict:
        if compared in self.options:
            return PASS
        return Verdict(False, f"expected one of {self.shown}, got {quote(text)}")


class _Regex(Check):
    """A regular expression search, bounded by the attempt's deadline (the `regex` package's timeout).

    A search runs on the event loop for at most ``REGEX_ON_LOOP`` seconds; one that
    needs longer (catastrophic backtracking) goes on in a daemon thread, the GIL
    released, so the app and Ctrl-C stay responsive and exit never waits for it.
    """

    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        source = string_field(spec, "regex", where)
        import regex  # here, not at the top: only a cases file with a regex check pays for it

        flags = regex.VERSION0 | (regex.IGNORECASE if spec.get("ignore_case") else 0)
        try:
            self.pattern = regex.compile(source, flags)
        except regex.error as error:
            raise InputError(f"{where}: bad regex {quote(source)}: {error}") from None

    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        text = checked_answer(output)
        loop = asyncio.get_running_loop()
        try:
            found = self.pattern.search(text, timeout=REGEX_ON_LOOP)
        except TimeoutError:
            remaining = deadline - loop.time()
            try:
                if remaining <= 0:
                    raise TimeoutError from None
                found = await in_daemon_thread(
                    lambda: self.pattern.search(text, timeout=remaining, concurrent=True)
                )
            except TimeoutError:
                shown = shorten(self.pattern.pattern)
                return Verdict(False, f"regex /{shown}/ still searching at the attempt's deadline")
        if found:
            return PASS
        return Verdict(False, f"no match for /{shorten(self.pattern.pattern)}/")


class _Number(PureCheck):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.expected = finite_field(spec, "number", where)
        self.tolerance = finite_field(spec, "tolerance", where) if "tolerance" in spec else 0
        if self.tolerance < 0:
            raise InputError(f"{where}: tolerance must not be negative, got {self.tolerance!r}")

    def evaluate(self, output: Any) -> Verdict:
        text = checked_answer(output)
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            return Verdict(False, f"not a number: {quote(text)}")
        difference = abs(value - self.expected)
        # Inclusive boundary despite binary floats: 1.1 is within 0.1 of 1.0.
        if difference <= self.tolerance or math.isclose(difference, self.tolerance):
            return PASS
        got = shorten(text)
        return Verdict(False, f"expected {self.expected} ± {self.tolerance}, got {got}")


class _Json(PureCheck):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        value = spec["json"]
        if value is not True and not isinstance(value, dict):
            raise InputError(f"{where}: json must be true or a schema table, got {value!r}")
        self.schema = Schema(value, f"{where}.json") if isinstance(value, dict) else None

    def evaluate(self, output: Any) -> Verdict:
        value = output
        if output is None or isinstance(output, str):
            text = checked_answer(output)
            if not text:
                return Verdict(False, "not valid JSON: empty answer")
            try:
                value = strict_json_loads(text)
            except ValueError as error:
                return Verdict(False, f"not valid JSON: {error}")
        problem = self.schema.problem(value, "$") if self.schema else None
        return Verdict(False, problem) if problem else PASS


class _All(Check):
    """`all` (and, through _Any, `any`): a non-empty list of checks, compiled each in turn."""

    def __init__(self, spec: dict[str, Any], where: str, base_dir: Path, nesting: Nesting) -> None:
        super().__init__(spec)
        kind = "all" if "all" in spec else "any"
        items = spec[kind]
        if not isinstance(items, list) or not items:
            raise InputError(f"{where}: {kind} must be a non-empty list of checks")
        inner = nesting.inner("all/any")
        self.checks = [
            _compile(item, f"{where}.{kind}[{index}]", base_dir, inner)
            for index, item in enumerate(items)
        ]
        self.waits = any(check.waits for check in self.checks)

    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        for check in self.checks:
            verdict = await check.verdict(output, deadline, transcript)
            if not verdict.passed:
                return verdict
        return PASS


class _Any(_All):
    async def verdict(
        self, output: Any, deadline: float, transcript: Transcript | None = None
    ) -> Verdict:
        reasons = []
        unjudged = None
        for check in self.checks:
            verdict = await check.verdict(output, deadline, transcript)
            if verdict.passed:
                return PASS
            reasons.append(verdict.reason or "failed")
            unjudged = unjudged or (verdict if verdict.errored else None)
        # One that could not judge (a judge without a majority, a sandbox's limit) may have
        # passed: the answer is not wrong, the attempt is errored.
        return unjudged or Verdict(False, "none passed: " + "; ".join(reasons))


_TEXT_CLASSES: dict[str, Callable[[dict[str, Any], str], Check]] = {
    "equals": _Equals,
    "contains": _Contains,
    "not_contains": _Contains,
    "regex": _Regex,
    "one_of": _OneOf,
}


def compile_check(spec: Any, where: str, base_dir: Path) -> Check:
    """Compile one check table, or raise InputError starting with ``where``.

    ``where`` locates the table for the user ("cases.toml: line 3: case 'x': check");
    ``base_dir`` is the cases file's folder, where `command` checks run.
    """
    return _compile(spec, where, base_dir, Nesting(where, MAX_CHECK_DEPTH))


def _compile(spec: Any, where: str, base_dir: Path, nesting: Nesting) -> Check:
    """compile_check at a given depth of all/any (``nesting``)."""
    if not isinstance(spec, dict):
        raise InputError(f"{where}: must be a table with one check kind, got {type_name(spec)}")
    for key in spec:
        if key not in KINDS and key not in MODIFIERS:
            hint = near_hint(str(key), KINDS + MODIFIERS)
            raise InputError(f"{where}: unknown kind {key!r}{hint}")
    kinds = [key for key in spec if key in KINDS]
    if not kinds:
        raise InputError(f"{where}: no check kind (one of {', '.join(KINDS)})")
    if len(kinds) > 1:
        listed = ", ".join(kinds)
        raise InputError(f"{where}: has {len(kinds)} kinds: {listed}; combine them with all/any")
    kind = kinds[0]
    if not isinstance(spec.get("ignore_case", False), bool):
        raise InputError(f"{where}: ignore_case must be true or false")
    if "ignore_case" in spec and kind not in TEXT_KINDS:
        raise InputError(f"{where}: ignore_case means nothing with {kind}")
    if "tolerance" in spec and kind != "number":
        raise InputError(f"{where}: tolerance goes only with number")
    for modifier in ("timeout", "sandbox"):
        if modifier in spec and kind != "command":
            raise InputError(f"{where}: {modifier} goes only with command")
    if "on" in spec and kind not in ("command", "judge"):
        raise InputError(f"{where}: on goes only with command or judge")
    for key in JUDGE_KEYS:
        if key in spec and kind != "judge":
            raise InputError(f"{where}: {key} goes only with judge")
    if kind in _TEXT_CLASSES:
        return _TEXT_CLASSES[kind](spec, where)
    if kind == "number":
        return _Number(spec, where)
    if kind == "json":
        return _Json(spec, where)
    if kind == "command":
        return CommandCheck(spec, where, base_dir)
    if kind == "tool_called":
        return ToolCalled(spec, where)
    if kind == "judge":
        return JudgeCheck(spec, where)
    group = _All if kind == "all" else _Any
    return group(spec, where, base_dir, nesting)


T = TypeVar("T")


async def in_daemon_thread(work: Callable[[], T]) -> T:
    """``work()`` in a daemon thread of its own, awaited; a cancelled wait leaves it to end alone.

    Unlike ``asyncio.to_thread``, whose pool threads ``asyncio.run`` and interpreter
    exit both join, nothing waits for this thread: ``work`` must bound itself (a
    regex search with a timeout), and its result is dropped if no one is waiting.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: no one waits
            loop.call_soon_threadsafe(_settle, future, setter, value)

    def run() -> None:
        try:
            result = work()
        except BaseException as exc:
            deliver(future.set_exception, exc)
        else:
            deliver(future.set_result, result)

    threading.Thread(target=run, name="passk-check", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[Any], setter: Callable[[Any], None], value: Any) -> None:
    """Set the result unless the waiter was cancelled (the future is done then)."""
    if not future.done():
        setter(value)


def command_checks(check: Check | None) -> Iterator[CommandCheck]:
    """Every `command` check in ``check``, those inside `all` and `any` too (``--executor ray``
    runs them on the cluster)."""
    if isinstance(check, CommandCheck):
        yield check
    elif isinstance(check, _All):
        for inner in check.checks:
            yield from command_checks(inner)
