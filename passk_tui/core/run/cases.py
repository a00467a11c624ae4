"""Loading and validating cases files (TOML and JSON Lines)."""

from __future__ import annotations

import json
import re
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passk_tui.core.checks.base import Check, strict_json_loads
from passk_tui.core.checks.kinds import compile_check
from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import lone_surrogate, positive_seconds
from passk_tui.core.inputs.conversation import SimulatedUser, parse_turns, parse_user
from passk_tui.core.inputs.toml_text import parse_toml
from passk_tui.core.text.mentions import refuse_unknown_keys, type_name
from passk_tui.core.text.terminal_text import escape, first_unsafe

CASE_KEYS = ("name", "input", "turns", "user", "check", "timeout")

# A `[[cases]]` header line; TOML parsers keep no positions, so case lines are found by scanning.
_CASES_HEADER = re.compile(r'\s*\[\[\s*(cases|"cases"|\'cases\')\s*\]\]\s*(#.*)?')
# Where a case's check starts inside its table: `check = {...}`, `check.equals = ...`, or a
# `[cases.check]` sub-table header.
_CHECK_LINE = re.compile(
    r"""\s*(?:(?:check|"check"|'check')\s*[=.]|\[\s*(?:cases|"cases"|'cases')\s*\.\s*"""
    r"""(?:check|"check"|'check')\s*[\].])"""
)


@dataclass(frozen=True, slots=True)
class Case:
    """A named input plus the check of its answer (None only under --completion-only)."""

    name: str
    input: Any
    check: Check | None
    spec: Any = None
    timeout: float | None = None
    """Seconds per attempt of this case, overriding --timeout; None: --timeout applies."""
    turns: tuple[str, ...] | None = None
    """The user's messages, played in order in one attempt (``input`` is then None)."""
    user: SimulatedUser | None = None
    """A simulated user who writes the user's messages (``input`` is then None)."""

    @property
    def conversational(self) -> bool:
        """True when an attempt is a conversation (``turns`` or a simulated ``user``)."""
        return self.turns is not None or self.user is not None

    def conversation(self) -> dict[str, Any]:
        """Its ``turns`` or ``user`` as written (stored, exported, shown); {} for one input."""
        if self.turns is not None:
            return {"turns": list(self.turns)}
        if self.user is not None:
            return {"user": self.user.to_json()}
        return {}


def load_cases(path: Path, completion_only: bool = False) -> list[Case]:
    """Read, validate and compile a cases file; any problem is one InputError line.

    Every message names the file (as given), the line or the case, and the
    problem, so that the CLI can print it as is and exit 2.
    """
    label = str(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".jsonl"):
        raise InputError(
            f"{label}: a cases file ends in .toml or .jsonl, not {suffix or 'nothing'!r}"
        )
    text = read_cases_text(path, label)
    if suffix == ".jsonl":
        return cases_of_rows(jsonl_rows(text, label), label, path.parent, completion_only)
    rows = _toml_rows(text, label)
    return cases_of_rows(rows, label, path.parent, completion_only, _check_places(text, rows))


def cases_of_rows(
    rows: list[tuple[str, Any]],
    label: str,
    base_dir: Path,
    completion_only: bool = False,
    check_places: Sequence[str | None] = (),
) -> list[Case]:
    """Validate and compile rows (each with its place: 'line 3', 'cases[0]') read from ``label``.

    A file's rows and the Python API's list of cases are checked alike, so a case given
    either way is refused for the same reasons in the same words.
    """
    if not rows:
        raise InputError(f"{label}: no cases")
    cases: list[Case] = []
    first_seen: dict[str, tuple[str, str]] = {}
    for index, (place, row) in enumerate(rows):
        check_place = check_places[index] if index < len(check_places) else None
        check_where = f"{label}: {check_place or place}"
        case = _case(row, f"{label}: {place}", base_dir, completion_only, check_where)
        key = name_key(case.name)
        seen = first_seen.get(key)
        if seen is not None:
            first_place, first_name = seen
            if first_name == case.name:
                problem = f"duplicate name (first at {first_place})"
            else:
                problem = (
                    f"the same name as {first_name!r} at {first_place}, written differently "
                    f"({first_name!a} and {case.name!a}; names are compared after "
                    "Unicode NFC normalisation, ignoring zero-width characters)"
                )
            raise InputError(f"{label}: {place}: case {case.name!r}: {problem}")
        first_seen[key] = (place, case.name)
        cases.append(case)
    return cases


def name_key(name: str) -> str:
    """What makes two case names the same: equal under NFC once invisible characters are gone."""
    if name.isascii():
        return name  # NFC leaves ASCII alone and it holds no invisible characters
    normal = unicodedata.normalize("NFC", name)
    return "".join(ch for ch in normal if unicodedata.category(ch) != "Cf")


def read_cases_text(path: Path, label: str) -> str:
    """The file's text; 'utf-8-sig' so that a byte-order mark from an editor does no harm.

    Only a regular file is read: a FIFO would block forever and /dev/zero never ends.
    """
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise InputError(f"{label}: not a regular file")
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{label}: is a folder, not a cases file") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{label}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise InputError(f"{label}: cannot read: {error.strerror}") from None
    except ValueError:  # a NUL or a lone surrogate: the OS cannot even be asked
        raise InputError(f"{label}: no such file (no file can have this name)") from None


def _toml_rows(text: str, label: str) -> list[tuple[str, Any]]:
    """The `cases` array of a TOML file, each with its place: 'line N' of its `[[cases]]`."""
    data = parse_toml(text, label)
    for key in data:
        if key != "cases":
            raise InputError(
                f"{label}: unknown top-level key {key!r} (cases go in [[cases]] tables)"
            )
    rows = data.get("cases", [])
    if not isinstance(rows, list):
        raise InputError(
            f"{label}: cases must be an array of tables ([[cases]]), got {type_name(rows)}"
        )
    lines = [
        number
        for number, line in enumerate(text.split("\n"), start=1)
        if "[[" in line and _CASES_HEADER.fullmatch(line)
    ]
    # Inline arrays (cases = [{...}]) have no headers: name the place by index instead.
    if len(lines) != len(rows):
        return [(f"cases[{index}]", row) for index, row in enumerate(rows)]
    return [(f"line {number}", row) for number, row in zip(lines, rows, strict=True)]


def _check_places(text: str, rows: list[tuple[str, Any]]) -> list[str | None]:
    """For each case at 'line N' (its `[[cases]]` header), 'line M' of its check: the first
    line of its table that starts one; None where none is found (the case's line is named)."""
    lines = text.split("\n")
    starts = [int(place.removeprefix("line ")) for place, _ in rows if place.startswith("line ")]
    if not rows or len(starts) != len(rows):
        return []
    places: list[str | None] = []
    for start, end in zip(starts, [*starts[1:], len(lines) + 1], strict=True):
        found = (n for n in range(start + 1, end) if _CHECK_LINE.match(lines[n - 1]))
        line = next(found, None)
        places.append(None if line is None else f"line {line}")
    return places


def jsonl_rows(text: str, label: str) -> list[tuple[str, Any]]:
    """The non-blank lines of a JSON Lines file, each parsed, with its place 'line N'."""
    rows: list[tuple[str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = strict_json_loads(line)
        except json.JSONDecodeError as error:
            problem = f"{error.msg} at column {error.colno}"
            raise InputError(f"{label}: line {number}: not valid JSON: {problem}") from None
        except ValueError as error:
            raise InputError(f"{label}: line {number}: not valid JSON: {error}") from None
        except RecursionError:
            raise InputError(f"{label}: line {number}: nested too deeply") from None
        surrogate = lone_surrogate(row)
        if surrogate is not None:
            raise InputError(
                f"{label}: line {number}: holds a lone UTF-16 surrogate ({escape(surrogate)}), "
                "which is not text (half of a character cut in two?)"
            )
        rows.append((f"line {number}", row))
    return rows


def _case(
    row: Any, where: str, base_dir: Path, completion_only: bool, check_where: str | None = None
) -> Case:
    """One case from its table, validated; ``where`` is 'file: line N' (or 'file: cases[i]'),
    ``check_where`` the same for the case's check (its own line, in a TOML file)."""
    if not isinstance(row, dict):
        raise InputError(
            f"{where}: a case must be an object with name, input and check, got {type_name(row)}"
        )
    written = row.get("name")
    # The name when it is usable, None otherwise: from here on `name` is a str or the case fails.
    name = written if isinstance(written, str) and written.strip() else None
    in_case = f"{where}: case {name!r}" if name is not None else where
    refuse_unknown_keys(row, CASE_KEYS, in_case)
    if "name" not in row:
        raise InputError(f"{where}: case has no name")
    if name is None:
        raise InputError(f"{where}: name must be a non-empty string, got {written!r}")
    unsafe = first_unsafe(name)
    if unsafe is not None:
        raise InputError(
            f"{where}: case {name!r}: the name holds a control character ({escape(unsafe)}); "
            "a case name is one line of plain text"
        )
    turns, user = _conversation(row, in_case)
    if turns is None and user is None:
        _check_input(row, in_case)
    timeout = row.get("timeout")
    if timeout is not None:
        timeout = positive_seconds(timeout, f"{in_case}: timeout")
    spec = row.get("check")
    if spec is None:
        if not completion_only:
            raise InputError(f"{in_case}: no check (add one, or pass --completion-only)")
        return Case(name, row.get("input"), None, None, timeout, turns, user)
    check = compile_check(spec, f"{check_where or where}: case {name!r}: check", base_dir)
    return Case(name, row.get("input"), check, spec, timeout, turns, user)


def _check_input(row: dict[str, Any], in_case: str) -> None:
    """A case's ``input``: given, and a JSON value (an agent gets it as JSON)."""
    if row.get("input") is None:
        raise InputError(f"{in_case}: no input")
    try:
        # TOML dates and times have no JSON form, and an agent gets its input as JSON.
        json.dumps(row["input"], allow_nan=False)
    except RecursionError:
        raise InputError(f"{in_case}: input is nested too deeply") from None
    except (TypeError, ValueError):
        raise InputError(
            f"{in_case}: input must be a JSON value (quote dates, no nan/inf)"
        ) from None


def _conversation(
    row: dict[str, Any], in_case: str
) -> tuple[tuple[str, ...] | None, SimulatedUser | None]:
    """A case's ``turns`` or ``user``: at most one of them, and then no ``input``."""
    given = [key for key in ("input", "turns", "user") if row.get(key) is not None]
    if len(given) > 1:
        raise InputError(f"{in_case}: {' and '.join(given)} both given (give exactly one)")
    if "turns" in row:
        return parse_turns(row["turns"], in_case), None
    if "user" in row:
        return None, parse_user(row["user"], in_case)
    return None, None
