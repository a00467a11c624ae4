"""The tools file of an `openai` agent version (``tools = "tools.toml"``): validated tool specs.

::

    [[tools]]
    name = "refund"
    description = "Refund an order by its id."
    parameters = { type = "object", properties = { order_id = { type = "string" } },
                   required = ["order_id"] }
    command = ["python3", "tools/refund.py"]   # the arguments as JSON on stdin; the answer on stdout
    timeout = 30                              # seconds, optional (default 30)
    sandbox = true                            # optional: run it sandboxed

Every problem is one InputError line naming the file, the tool and the field.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.bounds import positive_seconds, strings
from passk_tui.core.inputs.program import argv_problem
from passk_tui.core.inputs.toml_text import parse_toml
from passk_tui.core.sandbox.settings import SandboxSettings, parse_sandbox
from passk_tui.core.text.mentions import refuse_unknown_keys, type_name

TOOL_KEYS = ("name", "description", "parameters", "command", "timeout", "sandbox")
#: Seconds a tool may run unless its ``timeout`` says otherwise (the attempt's deadline
#: bounds it in any case).
TOOL_TIMEOUT = 30.0
#: Model requests one Turn may make while the model keeps calling tools (then ``stopped``),
#: unless the version's ``max_steps`` says otherwise.
MAX_STEPS = 10
#: The names Chat Completions accepts for a function.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The types a JSON schema may name.
_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool the model may call, and the program that answers it."""

    name: str
    description: str
    parameters: dict[str, Any]
    command: tuple[str, ...]
    timeout: float = TOOL_TIMEOUT
    sandbox: SandboxSettings | None = None

    def declared(self) -> dict[str, Any]:
        """The tool as the model is told of it (a Chat Completions ``tools`` entry)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True, slots=True)
class ToolsFile:
    """The tools of one file, its folder (where their commands run) and its bytes' sha256."""

    path: Path
    tools: tuple[ToolSpec, ...]
    sha256: str

    @property
    def folder(self) -> Path:
        return self.path.parent


def load_tools(path: Path, label: str) -> ToolsFile:
    """Read and validate a tools file; ``label`` is how messages name it."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise InputError(f"{label}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{label}: not UTF-8 text") from None
    data = parse_toml(text, label)
    for key in data:
        if key != "tools":
            raise InputError(f"{label}: unknown top-level key {key!r} (tools go in [[tools]])")
    rows = data.get("tools")
    if not isinstance(rows, list) or not rows:
        raise InputError(f"{label}: no tools (expected [[tools]] tables)")
    tools: list[ToolSpec] = []
    for index, row in enumerate(rows):
        tool = _tool(row, f"{label}: tools[{index}]", path.parent.absolute())
        if any(seen.name == tool.name for seen in tools):
            raise InputError(f"{label}: tools[{index}]: name {tool.name!r} is given twice")
        tools.append(tool)
    return ToolsFile(path.absolute(), tuple(tools), hashlib.sha256(raw).hexdigest())


def _tool(row: Any, where: str, folder: Path) -> ToolSpec:
    if not isinstance(row, dict):
        raise InputError(f"{where}: must be a table, got {type_name(row)}")
    refuse_unknown_keys(row, TOOL_KEYS, where)
    name = row.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InputError(f"{where}: name must be 1 to 64 letters, digits, _ or -, got {name!r}")
    where = f"{where} ({name})"
    description = row.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{where}: description must be a string")
    parameters = row.get("parameters", {"type": "object", "properties": {}})
    _check_schema(parameters, f"{where}: parameters")
    if "command" not in row:
        raise InputError(f"{where}: no command (the program that answers the tool)")
    argv = strings(row, "command", f"{where}: command")
    problem = argv_problem(argv)
    if problem:
        raise InputError(f"{where}: command {problem}")
    timeout = TOOL_TIMEOUT
    if "timeout" in row:
        timeout = positive_seconds(row["timeout"], f"{where}: timeout")
    sandbox = parse_sandbox(row.get("sandbox", False), where, folder)
    return ToolSpec(name, description, parameters, tuple(argv), timeout, sandbox)


def _check_schema(schema: Any, where: str) -> None:
    """A tool's parameters: a JSON schema of an object whose properties are schemas too."""
    if not isinstance(schema, dict):
        raise InputError(f"{where}: must be a JSON schema table, got {type_name(schema)}")
    if schema.get("type") != "object":
        raise InputError(f"{where}: type must be 'object' (a tool takes named arguments)")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise InputError(f"{where}: properties must be a table of schemas")
    for key, value in properties.items():
        _check_property(value, f"{where}: properties.{key}")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
        raise InputError(f"{where}: required must be a list of property names")
    for item in required:
        if item not in properties:
            raise InputError(f"{where}: required names {item!r}, which is not in properties")


def _check_property(schema: Any, where: str) -> None:
    if not isinstance(schema, dict):
        raise InputError(f"{where}: must be a schema table, got {type_name(schema)}")
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for item in kinds:
        if item not in _JSON_TYPES:
            raise InputError(
                f"{where}: type {item!r} is not a JSON type ({', '.join(_JSON_TYPES)})"
            )
    if kind == "object":
        _check_schema(schema, where)
