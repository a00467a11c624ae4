"""passk-tui: how reliably does an agent do each job? Exact pass@k per case, live.

The names below are the Python API (docs/python.md); everything else is internal.
Each is imported on first use, so ``passk-tui --help`` and the pytest plugin of a session that
marks no test pay nothing for them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from passk_tui.core.version import __version__

if TYPE_CHECKING:
    from passk_tui.api.cases import Case
    from passk_tui.api.evaluate import evaluate, evaluate_async
    from passk_tui.api.results import CaseResult, Result
    from passk_tui.api.stack import Stack
    from passk_tui.core.errors import InputError, RunError

#: Each public name and the module that holds it.
_PUBLIC = {
    "evaluate": "passk_tui.api.evaluate",
    "evaluate_async": "passk_tui.api.evaluate",
    "Case": "passk_tui.api.cases",
    "Stack": "passk_tui.api.stack",
    "Result": "passk_tui.api.results",
    "CaseResult": "passk_tui.api.results",
    "InputError": "passk_tui.core.errors",
    "RunError": "passk_tui.core.errors",
}

__all__ = [
    "Case",
    "CaseResult",
    "InputError",
    "Result",
    "RunError",
    "Stack",
    "__version__",
    "evaluate",
    "evaluate_async",
]


def __getattr__(name: str) -> Any:
    """A public name, imported the first time it is asked for (PEP 562)."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'passk_tui' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
