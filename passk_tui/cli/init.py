"""`passk-tui init`: starter cases.toml and agents.toml in the working folder, never overwriting."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from passk_tui.cli.flags import FlagParser
from passk_tui.cli.output import say
from passk_tui.core.errors import ExitCode

#: The files written, in order; their text is package data in passk_tui/starter/.
STARTER_FILES = ("cases.toml", "agents.toml")

NEXT_STEP = "passk-tui --agent echo --version 1 --cases cases.toml"


def run_init(argv: list[str], folder: Path | None = None) -> int:
    """Write the starter files into ``folder`` (the working folder); exit 2 if one exists."""
    FlagParser(
        prog="passk-tui init",
        description=(
            "Write a starter cases.toml and agents.toml (a command agent and a commented "
            "openai one) into the working folder; an existing file is never overwritten."
        ),
    ).parse_args(argv)
    folder = folder if folder is not None else Path.cwd()
    existing = [name for name in STARTER_FILES if (folder / name).exists()]
    if existing:
        return _refuse(existing[0])
    for name in STARTER_FILES:
        text = resources.files("passk_tui.starter").joinpath(name).read_text(encoding="utf-8")
        try:
            with open(folder / name, "x", encoding="utf-8") as file:
                file.write(text)
        except FileExistsError:  # created meanwhile
            return _refuse(name)
        except OSError as exc:
            say(f"{name}: cannot write: {exc.strerror or exc}")
            return ExitCode.BAD_INPUT
    say(f"wrote {' and '.join(STARTER_FILES)}; now run: {NEXT_STEP}")
    return ExitCode.OK


def _refuse(name: str) -> int:
    say(f"{name}: already exists; init overwrites nothing")
    return ExitCode.BAD_INPUT
