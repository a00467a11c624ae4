"""The conversation screenshots: this example run in the real app, one attempt's transcript shown.

``python screenshots.py [FOLDER]`` starts ``scripted_model.py`` (seeded: the same
answers each time), runs the example's cases in the app, opens the refund-by-chat
case and its first attempt's conversation with a tool call opened, and saves it at
80x24 and 160x50 as ``conversation-80x24.svg`` and ``conversation-160x50.svg`` in
FOLDER (default: the repository's screenshots/). The store goes to a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_FOLDER = HERE.parents[1] / "screenshots"
SIZES = ((80, 24), (160, 50))
#: The case shown: a simulated user, tool calls, the stop text.
CASE = "refund-by-chat"


async def shoot(size: tuple[int, int]) -> str:
    """The Case screen of CASE after a run, at ``size``: its first attempt's conversation."""
    from passk_tui.core.inputs.settings import Settings
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.app.screenshot_saving import preserve_spaces
    from passk_tui.tui.screens.case import CaseScreen

    settings = Settings(
        agent="support",
        version=1,
        cases_path=str(HERE / "cases.toml"),
        attempts=3,
        k=2,
        agents_path=str(HERE / "agents.toml"),
    )
    app = PasskApp(show_timing=False)
    async with app.run_test(size=size) as pilot:
        app.controller.start_evaluation(settings, None)
        while app.controller.worker is None or not app.controller.worker.is_finished:
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        assert app.controller.view is not None
        app.push_screen(
            CaseScreen(app.controller.view, app.controller.view.progress.case_names.index(CASE))
        )
        await pilot.pause(0.3)
        await pilot.press("a")  # into the conversation
        await pilot.press(*["down"] * 4, "enter")  # the first tool call, opened
        await pilot.pause(0.3)
        return preserve_spaces(app.export_screenshot())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = (Path(argv[0]) if argv else DEFAULT_FOLDER).absolute()
    folder.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [sys.executable, str(HERE / "scripted_model.py"), "--port", "8099", "--seed", "3"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()  # its address: listening
        with tempfile.TemporaryDirectory() as home:
            for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSK_DATA_DIR"):
                os.environ[name] = str(Path(home) / name.lower())
            os.chdir(HERE)
            for width, height in SIZES:
                path = folder / f"conversation-{width}x{height}.svg"
                path.write_text(asyncio.run(shoot((width, height))), encoding="utf-8")
                print(path)
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
