"""The last-used configure settings, kept as TOML in the user config folder (never the key).

They were used in a folder, and they are for that folder's agent: opened in another folder
that has its own agents file, the agent's settings (version, baseline, attempts, gate,
prices, budgets, cases) are left out and only this machine's (concurrency, timeout) kept,
so a new project never opens on the last one's baseline, blocked before it begins.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from passk_tui.tui.screens.configure.form import SWITCHES, TEXT_FIELDS, FormValues

FILE_NAME = "settings.toml"
#: The fields worth remembering: everything but the key, which stays in the env or the field.
REMEMBERED = tuple(name for name in TEXT_FIELDS if name != "key")
#: Saved as TOML integers and floats rather than text, so the file reads naturally (prices
#: and the cost budget stay text: the exact decimal typed, as a flag gives it).
_INTEGERS = ("version", "attempts", "k", "concurrency", "budget_runs")
#: What fits any agent: the machine's and the user's patience, not the project's.
_ANY_AGENT = ("concurrency", "timeout")
#: The folder they were used in, beside the settings.
_FOLDER = "folder"


def settings_file() -> Path:
    return Path(platformdirs.user_config_dir("passk-tui")) / FILE_NAME


def load_last_used(path: Path | None = None) -> FormValues:
    """The saved field values (as text); nothing when absent or unreadable (never fatal)."""
    data = _read(path or settings_file())
    values: FormValues = {}
    for name in REMEMBERED:
        value = data.get(name)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            values[name] = str(value)
    for name in SWITCHES:
        if isinstance(data.get(name), bool):
            values[name] = data[name]
    return values


def used_in(path: Path | None = None) -> Path | None:
    """The folder the last-used settings were used in; None when not known (an older file)."""
    folder = _read(path or settings_file()).get(_FOLDER)
    return Path(folder) if isinstance(folder, str) else None


def for_this_folder(
    saved: FormValues, saved_in: Path | None, folder: Path, here: Mapping[str, str]
) -> tuple[FormValues, str | None]:
    """The last-used settings that fit ``folder``, and a line naming those left out (or None).

    ``here``: the fields the folder's own files give (``working_folder_fields``); without an
    agents file of its own, the saved agent, wherever its file is, is still the one measured.
    """
    if "agents" not in here or saved_in == folder.resolve():
        return saved, None
    kept = {name: value for name, value in saved.items() if name in _ANY_AGENT}
    # Its files go unnamed (they are in the folder named), and what the folder says again.
    left = [
        f"--{name.replace('_', '-')}" + ("" if value is True else f" {value}")
        for name, value in saved.items()
        if name not in (*kept, "cases", "agents") and value is not False and here.get(name) != value
    ]
    if not left:
        return kept, None
    where = f"in {saved_in}" if saved_in else "elsewhere"
    return kept, (
        f"This folder has its own {here['agents']}: the settings last used {where} are left "
        f"out ({' '.join(left)})."
    )


def save_last_used(values: Mapping[str, str | bool], path: Path | None = None) -> None:
    """Write the non-empty fields (paths made absolute, the key left out) and the folder they
    are used in; best effort."""
    path = path or settings_file()
    data: dict[str, str | int | float | bool] = {_FOLDER: str(Path.cwd().resolve())}
    for name in REMEMBERED:
        text = str(values.get(name, "") or "").strip()
        if not text:
            continue
        if name in ("cases", "agents"):
            text = str(Path(text).expanduser().resolve())
        if name in _INTEGERS and text.lstrip("-").isdigit():
            data[name] = int(text)
        elif name == "timeout":
            try:
                data[name] = float(text)
            except ValueError:
                data[name] = text
        else:
            data[name] = text
    for name in SWITCHES:
        data[name] = bool(values.get(name, False))
    theme = load_theme(path)
    if theme:
        data["theme"] = theme
    _write(path, data)


def load_theme(path: Path | None = None) -> str | None:
    """The theme chosen last time (Ctrl+P, "Change theme"); None when never chosen."""
    theme = _read(path or settings_file()).get("theme")
    return theme if isinstance(theme, str) else None


def save_theme(theme: str, path: Path | None = None) -> None:
    """Remember the theme beside the other last-used settings (best effort)."""
    path = path or settings_file()
    data = _read(path)
    data["theme"] = theme
    _write(path, data)


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _write(path: Path, data: Mapping[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tomli_w.dumps(data), encoding="utf-8")
    except OSError:
        pass
