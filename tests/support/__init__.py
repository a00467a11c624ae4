"""Helpers the tests share: the test stack, the fake OpenAI server, the app's set-up, records."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (pyproject.toml, examples/, bench/).
ROOT = Path(__file__).resolve().parents[2]
#: Small agent programs the command target and the faces run as real processes.
AGENTS = Path(__file__).resolve().parent / "agents"
#: The app's scripted agent, its agents file and cases.
APP_AGENTS = Path(__file__).resolve().parent / "app_agents"
#: The CLI's scripted agent, agents files and the seed suite.
CLI_AGENTS = Path(__file__).resolve().parent / "cli_agents"
