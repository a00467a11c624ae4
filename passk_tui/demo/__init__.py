"""The bundled demo: a small suite and a deliberately flaky agent, so the tool works out of the box."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
CASES = HERE / "cases.toml"
AGENTS = HERE / "agents.toml"
AGENT = "demo"
VERSION = 1
