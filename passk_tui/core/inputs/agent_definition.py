"""What an evaluation measured: the resolved agent definition, as stored, exported and shown.

A local version is a label in an editable agents file, so "calc v1" alone does
not say what ran. Each target states what its label resolved to when the
evaluation was made, as a JSON object of one of three stable shapes::

    {"kind": "command", "command": ["python3", "agents/calc.py"], "folder": "/abs/dir"}
    {"kind": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5:0.5b",
     "system": "..." | null, "api_key_env": "OPENAI_API_KEY" | null,
     "params": {"temperature": 0}, "timeout": 30.0 | null}
    {"kind": "stack", "stack": "https://stack.example", "agent": "calc", "version": 3}
    {"kind": "python", "callable": "my_module.my_agent"}
    {"kind": "import", "tool": "inspect", "tool_version": "0.3.285",
     "files": [{"path": "/abs/log.eval", "sha256": "..."}], "options": {}, "fingerprint": "..."}

A command is kept as written, with the folder it runs in (the agents file's):
that pair is exactly what starts the process, and relative paths among its
arguments mean something only beside that folder. No key is ever part of one:
an ``openai`` base URL loses its user, password and secret-looking query values,
and only the key's environment variable is named. A stack's address is where the
agent is reached, not what it is (a stack version is immutable, runs-api.md), so
two definitions that differ only there measure the same thing.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

Definition = dict[str, Any]

#: What a secret-looking query value of a base URL is replaced with.
MASK = "***"
IMPORT_KIND = "import"
#: Query parameters whose value is taken for a credential (``?api-key=``, ``?token=``...).
_SECRET_QUERY = re.compile(r"key|token|secret|passw|pwd|sig|auth|credential", re.IGNORECASE)
#: The user and password of an address (``//user:password@``).
_USERINFO = re.compile(r"//[^/?#]*@")
#: Where a stack is reached: not part of what is measured (see the module's docstring). An
#: import's files are one run of what it names, not what it is: another run has other files.
_WHERE = {"stack": ("stack",), IMPORT_KIND: ("files", "fingerprint", "tool_version")}
#: Longest value a change line quotes; longer ones end in "…".
CHANGE_CHARS = 80
#: Longest system prompt the one-line description quotes.
SYSTEM_CHARS = 30


def command_definition(argv: Sequence[str], folder: Path) -> Definition:
    """A ``command`` version: its argv as written and the folder it runs in."""
    return {"kind": "command", "command": list(argv), "folder": str(folder)}


def openai_definition(
    *,
    base_url: str,
    model: str,
    system: str | None,
    api_key_env: str | None,
    params: dict[str, Any],
    timeout: float | None,
) -> Definition:
    """An ``openai`` version: the endpoint without credentials, the model and its request."""
    return {
        "kind": "openai",
        "base_url": public_url(base_url),
        "model": model,
        "system": system,
        "api_key_env": api_key_env,
        "params": dict(params),
        "timeout": timeout,
    }


def stack_definition(url: str, agent: str, version: int) -> Definition:
    """A stack agent version: its id and version, and where the stack was (no credentials)."""
    return {"kind": "stack", "stack": public_url(url), "agent": agent, "version": version}


def python_definition(name: str) -> Definition:
    """A Python callable given to ``passk_tui.evaluate``: its module and qualified name, the
    only stable thing about it (its code may change under the same name, as a file's may)."""
    return {"kind": PYTHON, "callable": name}


#: The kind of a callable agent's definition: only the Python process that holds it can run it.
PYTHON = "python"


def python_only(evaluation_id: str, definition: Definition | None) -> str | None:
    """Why no command line or app can run more of this evaluation, and the Python call that
    does; None when its agent is not a Python callable. The CLI's refusal of ``--resume`` and
    the app's disabled Resume and More attempts say the same words."""
    if (definition or {}).get("kind") != PYTHON:
        return None
    return (
        f"its agent is the Python callable {(definition or {}).get('callable')}, which only "
        f"Python can run: passk_tui.evaluate(agent, resume={evaluation_id!r})"
    )


#: The kind of an imported evaluation's definition: another tool ran it, nothing can run more.
IMPORT = IMPORT_KIND


def imported_definition(
    tool: str,
    tool_version: str | None,
    files: Sequence[tuple[str, str]],
    options: dict[str, Any],
    fingerprint: str,
) -> Definition:
    """An evaluation read from another tool's files (``passk-tui import``): the tool, its
    version where the log says it, each file with its sha256, and the mapping's options."""
    return {
        "kind": IMPORT,
        "tool": tool,
        "tool_version": tool_version,
        "files": [{"path": path, "sha256": digest} for path, digest in files],
        "options": dict(options),
        "fingerprint": fingerprint,
    }


def not_runnable(evaluation_id: str, definition: Definition | None) -> str | None:
    """Why no command line or app can run more of this evaluation (a Python callable's, an
    import's); None when it can be resumed like any other."""
    if (definition or {}).get("kind") == IMPORT:
        return f"it was {describe(definition)}; passk-tui cannot run more of it"
    return python_only(evaluation_id, definition)


def outside_verdict(definition: Definition | None) -> str | None:
    """Who decided each attempt of an imported evaluation (its tool's own scorer), for the
    screens that would otherwise say it had no check; None for a run of ours."""
    if (definition or {}).get("kind") != IMPORT:
        return None
    return f"decided by {(definition or {}).get('tool')} (imported), not by a check of ours"


def public_url(url: str) -> str:
    """``url`` fit to store and show: no user or password, no fragment, and each query value
    whose name looks like a credential (``api-key``, ``token``, ``sig``...) masked."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        query = [
            (name, MASK if _SECRET_QUERY.search(name) else value)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
        ]
    except ValueError:  # not a URL one can take apart: keep only what cannot be a secret
        return _USERINFO.sub("//", url).partition("?")[0].partition("#")[0]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe="*"), ""))


def same_measure(old: Definition | None, new: Definition | None) -> bool:
    """Whether two definitions run the same thing (a stack's address may differ)."""
    return _measured(old) == _measured(new)


def _measured(definition: Definition | None) -> Definition | None:
    if definition is None:
        return None
    ignored = _WHERE.get(definition.get("kind", ""), ())
    return {name: value for name, value in definition.items() if name not in ignored}


def changes(old: Definition, new: Definition) -> list[str]:
    """What differs, one phrase per field: ``command changed from [...] to [...]``."""
    if old.get("kind") != new.get("kind"):
        return [f"kind changed from {old.get('kind')} to {new.get('kind')}"]
    was, now = _measured(old) or {}, _measured(new) or {}
    return [
        f"{name} changed from {_quoted(was.get(name))} to {_quoted(now.get(name))}"
        for name in dict.fromkeys([*was, *now])
        if was.get(name) != now.get(name)
    ]


def changed_warning(
    agent: str, version: int, evaluation_id: str, old: Definition, new: Definition
) -> str:
    """The one line that says a label now resolves to something else than it did."""
    what = "; ".join(changes(old, new))
    return f"{agent} v{version} is not what it was in evaluation {evaluation_id}: {what}"


def _quoted(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= CHANGE_CHARS else text[: CHANGE_CHARS - 1] + "…"


def describe(definition: Definition | None) -> str:
    """The definition in one short line: ``python3 agents/calc.py``, or
    ``openai qwen2.5:0.5b @ http://127.0.0.1:11434/v1 · temperature=0``."""
    if definition is None:
        return "definition not recorded"
    kind = definition.get("kind")
    if kind == "command":
        return shlex.join(definition.get("command") or [])
    if kind == "openai":
        parts = [f"openai {definition.get('model')} @ {definition.get('base_url')}"]
        params = definition.get("params") or {}
        parts += [f"{name}={_compact(value)}" for name, value in params.items()]
        system = definition.get("system")
        if system:
            cut = system if len(system) <= SYSTEM_CHARS else system[: SYSTEM_CHARS - 1] + "…"
            parts.append(f"system {json.dumps(cut, ensure_ascii=False)}")
        return " · ".join(parts)
    if kind == "stack":
        return f"on the stack at {definition.get('stack')}"
    if kind == PYTHON:
        return f"python {definition.get('callable')}"
    if kind == IMPORT:
        tool = " ".join(
            str(t) for t in (definition.get("tool"), definition.get("tool_version")) if t
        )
        names = ", ".join(Path(str(f.get("path"))).name for f in definition.get("files") or [])
        return f"imported from {tool}: {names}"
    return json.dumps(definition, ensure_ascii=False)


def labelled(agent: str, version: int, definition: Definition | None) -> str:
    """``calc v1: python3 agents/calc.py``: what a label ran, as a header line shows it."""
    return f"{agent} v{version}: {describe(definition)}"


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


#: How the report names each field of a definition.
_FIELD_LABELS = {
    "command": "command",
    "folder": "runs in",
    "base_url": "base URL",
    "model": "model",
    "system": "system prompt",
    "api_key_env": "key from env",
    "params": "params",
    "timeout": "request timeout (s)",
    "stack": "stack",
    "callable": "callable",
    "tool": "tool",
    "tool_version": "tool version",
    "files": "files",
    "options": "import options",
}


def fields(definition: Definition | None) -> list[tuple[str, str]]:
    """Each field of the definition as (label, text), for a report's settings list."""
    if definition is None:
        return [("agent definition", describe(None))]
    rows = [("agent kind", str(definition.get("kind")))]
    for name, value in definition.items():
        # A stack's agent and version are the evaluation's own, shown beside these already.
        if name in ("kind", "agent", "version") or value is None:
            continue
        text = shlex.join(value) if name == "command" else _compact(value)
        rows.append((_FIELD_LABELS.get(name, name), text))
    return rows
