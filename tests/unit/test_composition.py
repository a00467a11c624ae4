"""Composition over towers: the engine and the store are objects that have parts, not stacks
of base classes cut to stay under a line count, and nothing reaches into another's privates.

Read from the source and the classes themselves, so that a new mixin or a new reach into
``evaluation._something`` fails here, by name, before a reviewer has to find it.
"""

from __future__ import annotations

import ast
import inspect

from passk_tui.core.run import engine
from passk_tui.core.run.attempt_flow import AttemptRunner, Recorder
from passk_tui.core.run.engine import Evaluation, Interleaved
from passk_tui.store import importing, reading, writing
from passk_tui.store.database import Store

#: Store's own members that are not a query: opening, closing, the path, the engine's sink.
STORE_FRAME = {"open", "close", "path", "sink"}


def test_the_engine_and_the_store_are_one_class_each() -> None:
    assert Evaluation.__bases__ == (object,)
    assert Store.__bases__ == (object,)


def test_an_evaluation_has_an_attempt_runner_and_a_recorder() -> None:
    evaluation_source = inspect.getsource(Evaluation)
    assert "AttemptRunner(" in evaluation_source
    assert "Recorder(" in evaluation_source
    # Each part keeps its own state: neither reads the Evaluation back.
    for part in (AttemptRunner, Recorder):
        assert "Evaluation" not in inspect.getsource(part)


def test_interleaved_uses_public_members_only() -> None:
    """Interleaved drives its evaluations through their public methods: an attribute whose
    name starts with ``_`` is read on ``self`` only."""
    tree = ast.parse(inspect.getsource(engine))
    [interleaved] = [
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == Interleaved.__name__
    ]
    reaches = sorted(
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(interleaved)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    )
    assert reaches == []


def test_each_store_method_is_the_query_function_of_its_name() -> None:
    """A question of the store is a function over the connection in a query module, and
    Store's method of the same name passes its arguments on unchanged."""
    modules = (reading, writing, importing)
    methods = {
        name: member
        for name, member in vars(Store).items()
        if not name.startswith("_") and name not in STORE_FRAME
    }
    assert methods, "Store has no query methods"
    for name, method in methods.items():
        found = [getattr(m, name) for m in modules if inspect.isfunction(getattr(m, name, None))]
        assert len(found) == 1, f"Store.{name}: no single query function {name} ({found})"
        [function] = found
        method_params = list(inspect.signature(method).parameters)[1:]
        function_params = list(inspect.signature(function).parameters)
        assert function_params[0] == "connection", f"{function.__module__}.{name}"
        assert function_params[1:] == method_params, f"Store.{name} and its query differ"
