"""Where Runs happen: the stack, local commands, OpenAI-compatible endpoints, Python callables.

httpx's ``__init__`` imports its own command line (click, rich and pygments) whenever click is
installed, as it is beside mkdocs or many other tools: 0.1-0.2 s and rich's modules at every
start of a stack or ``openai`` run, for a command passk-tui never calls. Before any module here
imports httpx, ``httpx._main`` is a stand-in whose ``main`` loads the real one on first call, so
``python -m httpx`` style use in the same process still works.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def _real_httpx_main(*args: Any, **kwargs: Any) -> Any:
    """httpx's own command line, loaded now that someone calls it."""
    sys.modules.pop("httpx._main", None)
    real = importlib.import_module("httpx._main")
    return real.main(*args, **kwargs)


if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    _stand_in = types.ModuleType("httpx._main", "httpx's command line, loaded on first call.")
    _stand_in.main = _real_httpx_main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = _stand_in
