"""The `openai` agent's tests: an agents file naming a fake endpoint, the CLI run without blocking its loop."""

from __future__ import annotations

import json
from pathlib import Path


def exported(path: Path) -> dict:
    return json.loads(path.read_text())


def openai_agents(folder: Path, base_url: str, **more: str) -> None:
    fields = "".join(f', {name} = "{value}"' for name, value in more.items())
    (folder / "agents.toml").write_text(
        f'[agents.llm.versions.1]\nopenai = {{ base_url = "{base_url}", model = "m"{fields} }}\n'
    )
