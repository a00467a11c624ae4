"""The app, driven headlessly: start at once from flags, stop when the Results screen shows.

    python bench/app_run.py --agent demo --version 1 --cases C.jsonl --stack URL ...

Takes the app's own flags (as ``passk-tui`` would) and does what ``run_app`` does when
``--agent/--version/--cases`` are given, but inside ``App.run_test`` (Textual's headless
driver: every frame is still composed, only not written to a terminal), under the same
GC thresholds as ``run_app``. Prints
``results-screen <seconds since the interpreter started>`` once the Results screen is up,
then quits. bench/limit.py and bench/scale.py run it as a measured child.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time


async def drive(argv: list[str]) -> int:
    from passk_tui.cli.flags import parse
    from passk_tui.evaluations.new import new_evaluation
    from passk_tui.evaluations.settings_text import settings_from_args, stack_key
    from passk_tui.tui.app import PasskApp
    from passk_tui.tui.launch import form_values
    from passk_tui.tui.screens.results import ResultsScreen

    args = parse(argv)
    key = stack_key(args, os.environ)
    evaluation = new_evaluation(settings_from_args(args, os.environ), key)
    values, _ = form_values(args, os.environ)
    app = PasskApp(form=values, env_key=key, start=evaluation)
    async with app.run_test(size=(160, 50)) as pilot:
        while not isinstance(app.screen, ResultsScreen):
            if app.failure is not None:
                sys.stderr.write(f"app_run: {app.failure}\n")
                return 3
            await asyncio.sleep(0.01)
        await pilot.pause()
        print(f"results-screen {time.monotonic() - START:.3f}", flush=True)
        progress = evaluation.progress
        print(
            f"finished {progress.finished}/{progress.total} passed {sum(progress.passed)}",
            flush=True,
        )
    return 0


START = time.monotonic()

if __name__ == "__main__":
    from passk_tui.cli.main import leave
    from passk_tui.core.run.heap import relaxed_gc

    with relaxed_gc():  # as run_app runs the app (tui/launch.py)
        status = asyncio.run(drive(sys.argv[1:]))
    leave(status)  # as passk-tui leaves once the app has closed
