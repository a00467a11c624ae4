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


#: The case the Case screenshot shows: the demo's one that passes, is wrong and errors.
MIXED_CASE = "weather-tool"
#: The demo is random: runs tried before giving up on one where MIXED_CASE is both.
TRIES = 8


async def take(folder: Path) -> list[Path]:
    """Drive the app through configure, run (mid-way), results and one case; save each screen.

    The demo's agent is random, so the run is repeated (in a fresh app) until its
    weather-tool case has passing, wrong and errored attempts, which the Case screen
    shows (a wrong one beside its diff against the passing one).
    """
    for _ in range(TRIES - 1):
        saved = await _take_once(folder)
        if saved:
            return saved
    return await _take_once(folder, settle=True)


async def _take_once(folder: Path, settle: bool = False) -> list[Path]:
    from passk_tui import demo
    from passk_tui.core.reading.vocabulary import Cell
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.app.screenshot_saving import preserve_spaces
    from passk_tui.tui.screens.configure.form import blank_form

    folder.mkdir(parents=True, exist_ok=True)
    # The form as a user fills it in for the demo, with paths relative to the demo's folder:
    # the run is started from it (Ctrl+R), so every screen shows the settings it claims.
    os.chdir(demo.HERE)
    form = blank_form() | {
        "agent": demo.AGENT,
        "version": str(demo.VERSION),
        "cases": demo.CASES.name,
        "agents": demo.AGENTS.name,
        "require": "0.8",
    }
    app = PasskApp(form=form)
    shots: dict[str, str] = {}

    def save(name: str) -> None:
        shots[name] = preserve_spaces(app.export_screenshot())

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        save("configure")
        await pilot.press("ctrl+r")
        await pilot.pause(0.1)
        assert app.controller.view is not None  # Ctrl+R started the run
        progress = app.controller.view.progress
        while progress.finished < progress.total // 2:
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        save("run")
        while app.controller.worker is not None and not app.controller.worker.is_finished:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        mixed = progress.case_names.index(MIXED_CASE)
        cells = list(progress.cells[mixed])
        if not {Cell.PASSED, Cell.WRONG, Cell.ERRORED} <= set(cells) and not settle:
            return []
        await pilot.press("p")  # the worst cases first
        await pilot.pause(0.2)
        save("results")
        await pilot.press("o", *["down"] * mixed, "enter")
        await pilot.pause(0.3)
        # A wrong attempt beside the list, its diff against the passing one (when there is one).
        first_wrong = cells.index(Cell.WRONG) if Cell.WRONG in cells else 0
        await pilot.press(*["down"] * first_wrong)
        await pilot.pause(0.3)
        save("case")
    saved = []
    for name, svg in shots.items():
        path = folder / f"{name}.svg"
        path.write_text(svg, encoding="utf-8")
        saved.append(path)
    return saved


#: The Matrix screen's sizes: the smallest the app promises, and a roomy one.
MATRIX_SIZES = ((80, 24), (160, 50))


async def take_matrix(folder: Path) -> list[Path]:
    """The demo's three versions as a matrix (Configure's Version ``1,2,3``, Ctrl+R), its
    Matrix screen saved once the run ends, at each of ``MATRIX_SIZES``."""
    from passk_tui import demo
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.app.screenshot_saving import preserve_spaces
    from passk_tui.tui.screens.configure.form import blank_form

    os.chdir(demo.HERE)
    form = blank_form() | {
        "agent": demo.AGENT,
        "version": "1,2,3",
        "cases": demo.CASES.name,
        "agents": demo.AGENTS.name,
        "attempts": "10",
        "require": "0.5",
    }
    saved = []
    for width, height in MATRIX_SIZES:
        app = PasskApp(form=form)
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.pause(0.3)
            await pilot.press("ctrl+r")
            await pilot.pause(0.1)
            while app.controller.worker is None or not app.controller.worker.is_finished:
                await pilot.pause(0.05)
            await pilot.pause(0.5)
            svg = preserve_spaces(app.export_screenshot())
        path = folder / f"matrix-{width}x{height}.svg"
        path.write_text(svg, encoding="utf-8")
        saved.append(path)
    return saved


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0]) if argv else DEFAULT_FOLDER
    with tempfile.TemporaryDirectory() as home:
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSK_DATA_DIR"):
            os.environ[name] = str(Path(home) / name.lower())
        for path in [*asyncio.run(take(folder)), *asyncio.run(take_matrix(folder))]:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
