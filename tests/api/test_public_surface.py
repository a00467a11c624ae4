"""The public API is the names the README and the Python page document, typed, each loaded on
first use."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import passk_tui
from tests.support import ROOT

PUBLIC = {
    "Case",
    "CaseResult",
    "InputError",
    "Result",
    "RunError",
    "Stack",
    "__version__",
    "evaluate",
    "evaluate_async",
}


def test_the_package_exports_only_the_documented_names() -> None:
    assert set(passk_tui.__all__) == PUBLIC == set(dir(passk_tui))
    for page in ("README.md", "docs/python.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        for name in PUBLIC - {"__version__"}:
            assert f"`{name}`" in text, (page, name)
    with pytest.raises(AttributeError, match="has no attribute 'session'"):
        passk_tui.session  # noqa: B018


def test_the_errors_are_the_clis() -> None:
    from passk_tui.core.errors import InputError, RunError

    assert passk_tui.InputError is InputError and passk_tui.RunError is RunError


def test_it_is_typed() -> None:
    assert (ROOT / "passk_tui" / "py.typed").is_file()


def test_importing_the_package_loads_no_api_until_a_name_is_asked_for() -> None:
    code = (
        "import json, sys\n"
        "import passk_tui\n"
        "before = sorted(m for m in sys.modules if m.startswith('passk_tui'))\n"
        "passk_tui.Case\n"
        "after = sorted(m for m in sys.modules if m.startswith('passk_tui'))\n"
        "print(json.dumps([before, after]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    before, after = json.loads(done.stdout)
    assert before == ["passk_tui", "passk_tui.core", "passk_tui.core.version"]
    assert "passk_tui.api.cases" in after and "passk_tui.api.evaluate" not in after
