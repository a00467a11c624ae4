"""The check kinds: each check table is compiled once at load, then judges answers fast."""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import signal
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Verdict
from passk_tui.core.errors import InputError
from passk_tui.core.json_schema import Schema
from passk_tui.core.values import SHOWN_CHARS, shorten, strings, type_name

#: Seconds a `command` check may run before it fails.
COMMAND_TIMEOUT = 60.0

TEXT_KINDS = ("equals", "contains", "not_contains", "regex", "one_of")
KINDS = (*TEXT_KINDS, "number", "json", "command", "all", "any")
MODIFIERS = ("ignore_case", "tolerance")

_PASS = Verdict(True)


def answer_text(output: Any) -> str:
    """The answer as the text checks see it: trimmed; JSON text for a non-string; '' for None."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output.strip()
    return json.dumps(output, ensure_ascii=False).strip()


def strict_json_loads(text: str) -> Any:
    """json.loads without NaN/Infinity, which Python accepts but JSON does not."""
    return json.loads(text, parse_constant=_reject_constant)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _quote(text: str) -> str:
    """A short, one-line quotation of text for a reason (repr escapes newlines)."""
    return repr(shorten(text))


def _tail(text: str) -> str:
    """The last non-blank line of a stream, cut from the left: where errors usually are."""
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    return last if len(last) <= SHOWN_CHARS else "…" + last[-(SHOWN_CHARS - 1) :]


def _string(spec: dict[str, Any], key: str, where: str) -> str:
    value = spec[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} must be a string, got {type_name(value)}")
    return value


def _finite(spec: dict[str, Any], key: str, where: str) -> float:
    value = spec[key]
    try:
        # An integer past float's range (a 401-digit number) overflows here: not finite either.
        finite = (
            not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
        )
    except OverflowError:
        finite = False
    if not finite:
        raise InputError(f"{where}: {key} must be a finite number, got {shorten(repr(value))}")
    return value


class Check(ABC):
    """One compiled check; ``spec`` is its table as written, for display."""

    #: True when evaluate may start a process: the engine then runs it in a thread.
    blocking: bool = False

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    @abstractmethod
    def evaluate(self, output: Any) -> Verdict:
        """Judge one answer; on failure the reason says why, briefly."""


class _TextCheck(Check):
    """A check of the trimmed answer text; with ``ignore_case`` both sides are casefolded."""

    def __init__(self, spec: dict[str, Any]) -> None:
        super().__init__(spec)
        self.ignore_case: bool = spec.get("ignore_case", False)

    def fold(self, text: str) -> str:
        return text.casefold() if self.ignore_case else text

    def evaluate(self, output: Any) -> Verdict:
        text = answer_text(output)
        return self.judge(text, self.fold(text))

    @abstractmethod
    def judge(self, text: str, compared: str) -> Verdict:
        """Judge ``compared`` (the text, casefolded when asked); quote ``text`` in reasons."""


class _Equals(_TextCheck):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.shown = _string(spec, "equals", where)
        self.expected = self.fold(self.shown)

    def judge(self, text: str, compared: str) -> Verdict:
        if compared == self.expected:
            return _PASS
        return Verdict(False, f"expected {_quote(self.shown)}, got {_quote(text)}")


class _Contains(_TextCheck):
    """`contains` and `not_contains`: ``present`` says which."""

    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.present = "contains" in spec
        self.shown = _string(spec, "contains" if self.present else "not_contains", where)
        if not self.shown:
            raise InputError(f"{where}: the text to look for must not be empty")
        self.needle = self.fold(self.shown)

    def judge(self, text: str, compared: str) -> Verdict:
        if (self.needle in compared) == self.present:
            return _PASS
        found = "not found in" if self.present else "found in"
        return Verdict(False, f"{_quote(self.shown)} {found} answer")


class _OneOf(_TextCheck):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        options = strings(spec, "one_of", where)
        self.shown = shorten(", ".join(repr(option) for option in options))
        self.options = frozenset(self.fold(option) for option in options)

    def judge(self, text: str, compared: str) -> Verdict:
        if compared in self.options:
            return _PASS
        return Verdict(False, f"expected one of {self.shown}, got {_quote(text)}")


class _Regex(Check):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        source = _string(spec, "regex", where)
        try:
            self.pattern = re.compile(source, re.IGNORECASE if spec.get("ignore_case") else 0)
        except re.error as error:
            raise InputError(f"{where}: bad regex {_quote(source)}: {error}") from None

    def evaluate(self, output: Any) -> Verdict:
        if self.pattern.search(answer_text(output)):
            return _PASS
        return Verdict(False, f"no match for /{shorten(self.pattern.pattern)}/")


class _Number(Check):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        self.expected = _finite(spec, "number", where)
        self.tolerance = _finite(spec, "tolerance", where) if "tolerance" in spec else 0
        if self.tolerance < 0:
            raise InputError(f"{where}: tolerance must not be negative, got {self.tolerance!r}")

    def evaluate(self, output: Any) -> Verdict:
        text = answer_text(output)
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            return Verdict(False, f"not a number: {_quote(text)}")
        difference = abs(value - self.expected)
        # Inclusive boundary despite binary floats: 1.1 is within 0.1 of 1.0.
        if difference <= self.tolerance or math.isclose(difference, self.tolerance):
            return _PASS
        got = shorten(text)
        return Verdict(False, f"expected {self.expected} ± {self.tolerance}, got {got}")


class _Json(Check):
    def __init__(self, spec: dict[str, Any], where: str) -> None:
        super().__init__(spec)
        value = spec["json"]
        if value is not True and not isinstance(value, dict):
            raise InputError(f"{where}: json must be true or a schema table, got {value!r}")
        self.schema = Schema(value, f"{where}.json") if isinstance(value, dict) else None

    def evaluate(self, output: Any) -> Verdict:
        value = output
        if output is None or isinstance(output, str):
            text = answer_text(output)
            if not text:
                return Verdict(False, "not valid JSON: empty answer")
            try:
                value = strict_json_loads(text)
            except ValueError as error:
                return Verdict(False, f"not valid JSON: {error}")
        problem = self.schema.problem(value, "$") if self.schema else None
        return Verdict(False, problem) if problem else _PASS


class _Command(Check):
    blocking = True

    def __init__(self, spec: dict[str, Any], where: str, base_dir: Path) -> None:
        super().__init__(spec)
        self.argv = list(strings(spec, "command", where))
        self.cwd = base_dir.absolute()
        program = Path(self.argv[0])
        # "checks/x.py" is the file beside the cases file; a bare "python3" stays a PATH lookup.
        if not program.is_absolute() and len(program.parts) > 1 and (self.cwd / program).is_file():
            self.argv[0] = str(self.cwd / program)

    def evaluate(self, output: Any) -> Verdict:
        try:
            # A session of its own, so that a timeout kills whatever the command started too.
            process = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=os.name == "posix",
            )
        except FileNotFoundError:
            return Verdict(False, f"command not found: {self.argv[0]}")
        except OSError as error:
            return Verdict(False, f"command could not start: {self.argv[0]}: {error.strerror}")
        with process:
            try:
                data = answer_text(output).encode("utf-8")
                stdout, stderr = process.communicate(data, timeout=COMMAND_TIMEOUT)
            except subprocess.TimeoutExpired:
                _kill(process)
                process.communicate()
                return Verdict(False, f"command timed out after {COMMAND_TIMEOUT:g} s")
        if process.returncode == 0:
            return _PASS
        if process.returncode < 0:
            return Verdict(False, f"command killed by signal {-process.returncode}")
        tail = _tail(stderr.decode("utf-8", "replace")) or _tail(stdout.decode("utf-8", "replace"))
        reason = f"command exited {process.returncode}"
        return Verdict(False, f"{reason}: {tail}" if tail else reason)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the command and, on POSIX, whatever it started (they share its process group)."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:
        pass  # it ended on its own meanwhile


class _All(Check):
    """`all` (and, through _Any, `any`): a non-empty list of checks, compiled each in turn."""

    def __init__(self, spec: dict[str, Any], where: str, base_dir: Path) -> None:
        super().__init__(spec)
        kind = "all" if "all" in spec else "any"
        items = spec[kind]
        if not isinstance(items, list) or not items:
            raise InputError(f"{where}: {kind} must be a non-empty list of checks")
        self.checks = [
            compile_check(item, f"{where}.{kind}[{index}]", base_dir)
            for index, item in enumerate(items)
        ]
        self.blocking = any(check.blocking for check in self.checks)

    def evaluate(self, output: Any) -> Verdict:
        for check in self.checks:
            verdict = check.evaluate(output)
            if not verdict.passed:
                return verdict
        return _PASS


class _Any(_All):
    def evaluate(self, output: Any) -> Verdict:
        reasons = []
        for check in self.checks:
            verdict = check.evaluate(output)
            if verdict.passed:
                return _PASS
            reasons.append(verdict.reason or "failed")
        return Verdict(False, "none passed: " + "; ".join(reasons))


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
    if not isinstance(spec, dict):
        raise InputError(f"{where}: must be a table with one check kind, got {type_name(spec)}")
    for key in spec:
        if key not in KINDS and key not in MODIFIERS:
            near = difflib.get_close_matches(str(key), KINDS + MODIFIERS, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
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
    if kind in _TEXT_CLASSES:
        return _TEXT_CLASSES[kind](spec, where)
    if kind == "number":
        return _Number(spec, where)
    if kind == "json":
        return _Json(spec, where)
    if kind == "command":
        return _Command(spec, where, base_dir)
    return _All(spec, where, base_dir) if kind == "all" else _Any(spec, where, base_dir)
