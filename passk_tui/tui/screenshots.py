"""Save an SVG of each screen of the real app running the bundled demo into screenshots/.

Run ``python -m passk_tui.tui.screenshots [FOLDER]`` after changing a screen; the README
shows the results. The store and settings go to a temporary folder, not yours.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

SIZE = (120, 36)
DEFAULT_FOLDER = Path(__file__).resolve().parents[2] / "screenshots"


async def take(folder: Path) -> list[Path]:
    """Drive the app through configure, run (mid-way), results and one case; save each screen."""
    from passk_tui import demo
    from passk_tui.tui.app import PasskApp
    from passk_tui.tui.form import blank_form

    folder.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    # The form as a user fills it in for the demo, with paths relative to the demo's folder.
    os.chdir(demo.HERE)
    form = blank_form() | {
        "agent": demo.AGENT,
        "version": str(demo.VERSION),
        "cases": demo.CASES.name,
        "agents": demo.AGENTS.name,
        "require": "0.8",
    }
    app = PasskApp(form=form, offer_demo=True)

    def save(name: str) -> None:
        path = folder / f"{name}.svg"
        app.save_screenshot(path.name, str(folder))
        saved.append(path)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        save("configure")
        await pilot.press("d")
        progress = app.view.progress
        while progress.finished < progress.total // 2:
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        save("run")
        while app.worker is not None and not app.worker.is_finished:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        await pilot.press("p")  # the worst cases first
        await pilot.pause(0.2)
        save("results")
        await pilot.press("enter")
        await pilot.pause(0.3)
        save("case")
    return saved


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0]) if argv else DEFAULT_FOLDER
    with tempfile.TemporaryDirectory() as home:
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSK_DATA_DIR"):
            os.environ[name] = str(Path(home) / name.lower())
        for path in asyncio.run(take(folder)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
