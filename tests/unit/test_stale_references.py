"""Every dotted name a docstring or comment cites still names something: no stale references.

Modules move between rooms; a docstring saying "see ``core.extent``" after the
module went to ``core.stats.extent`` sends a reader nowhere. The names cited as
``passk_tui.x.y`` or ``core.x.y`` (read as ``passk_tui.core.x.y``) must resolve to
a module, or an attribute of one: a class, a function, a constant, a member, or an
attribute a class sets on its instances. A document cited by file name (``README.md``)
must be in the repository too.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

import passk_tui

PACKAGE = Path(passk_tui.__file__).parent

#: A cited name: the package or its core, then at least one dotted part (a sentence's
#: full stop after it is not a part: a part starts with a letter or an underscore).
CITED = re.compile(r"(?<![\w./])(?:passk_tui|core)(?:\.[A-Za-z_]\w*)+")
#: A document cited by its file name.
DOCUMENT = re.compile(r"(?<![\w./-])[\w-]+\.md\b")


def prose(source: str) -> Iterator[tuple[int, str]]:
    """The comments and the docstrings (any statement that is a lone string) of ``source``,
    each with its first line."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.lineno, node.value.value


def _member(owner: object, name: str) -> object:
    """``owner.name``; of a class also a dataclass field or an attribute its code sets on
    ``self`` (those are not on the class itself). AttributeError when there is none."""
    if hasattr(owner, name):
        return getattr(owner, name)
    if inspect.isclass(owner):
        if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
            return name
        if name in getattr(owner, "__annotations__", {}):
            return name
        if re.search(rf"\bself\.{name}\b", inspect.getsource(owner)):
            return name
    raise AttributeError(name)


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module, or an attribute (chain) of the longest module in it."""
    parts = dotted.split(".")
    if parts[0] == "core":
        parts = ["passk_tui", *parts]
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        try:
            for name in parts[cut:]:
                found = _member(found, name)
        except AttributeError:
            return False
        return True
    return False


def cited_names() -> Iterator[tuple[str, str]]:
    """(where, name) for every dotted name cited in the package's prose."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, text in prose(path.read_text(encoding="utf-8")):
            for name in CITED.findall(text):
                yield f"{path.relative_to(PACKAGE.parent)}:{line}", name


def test_the_scan_finds_citations_and_tells_a_stale_one() -> None:
    """The test can fail: a moved module's old name does not resolve; the new one does."""
    assert sum(1 for _ in cited_names()) > 40
    assert resolves("core.stats.extent.progress_extent")
    assert resolves("passk_tui.core.run.engine.Evaluation.cancel")
    assert resolves("core.run.engine.Evaluation.status")  # set on self in __init__
    assert not resolves("core.extent")
    assert not resolves("core.values.settings")
    assert not resolves("core.run.engine.Evaluation.no_such_member")


def test_every_cited_name_resolves() -> None:
    stale = sorted({f"{where}: {name}" for where, name in cited_names() if not resolves(name)})
    if stale:
        pytest.fail("stale references in docstrings or comments:\n" + "\n".join(stale))


def test_every_cited_document_is_in_the_repository() -> None:
    """A reader can open what the code cites: the root's files and docs/."""
    root = PACKAGE.parent
    present = {p.name for p in (*root.glob("*.md"), *(root / "docs").glob("**/*.md"))}
    missing = sorted(
        {
            f"{path.relative_to(root)}:{line}: {name}"
            for path in sorted(PACKAGE.rglob("*.py"))
            for line, text in prose(path.read_text(encoding="utf-8"))
            for name in DOCUMENT.findall(text)
            if name not in present
        }
    )
    if missing:
        pytest.fail("documents cited but not in the repository:\n" + "\n".join(missing))
