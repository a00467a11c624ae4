"""The app, driven headlessly: start at once from flags, stop when the Results screen shows.

    python bench/app_run.py --agent demo --version 1 --cases C.jsonl --stack URL ...

Takes the app's own flags (as ``passk-tui`` would) and does what ``run_app`` does when
``--agent/--version/--cases`` are given (the run begun before the app is built:
``tui/app/early_start.py``), but inside ``App.run_test`` (Textual's headless
driver: every frame is still composed, only not written to a terminal), under the same
GC thresholds as ``run_app``. Prints
``results-screen <seconds since the interpreter started>`` once the Results screen has
drawn its first frame, then leaves at once, as ``passk-tui`` leaves once the app has
closed (the user's ``q`` comes after the results, not before them). bench/limit.py and
bench/scale.py run it as a measured child.

The Results screen is waited for without sleeping: pushed, it is heard from the app's
screen-change signal, and its first frame from its own layout-refresh signal (Textual
draws the frame as it lays the screen out). Until
2026-12-02 this polled every 10 ms, then waited for ``Pilot.pause()`` (at least 20 ms of
"is the CPU idle?" sleeps) and for the app's teardown: about 60 ms of the harness's own,
charged to the app's wall time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time


async def drive(argv: list[str]) -> int:
    from textual.screen import Screen

    from passk_tui.cli.flags import parse
    from passk_tui.cli.main import leave
    from passk_tui.evaluations.new import new_evaluation
    from passk_tui.evaluations.settings_text import settings_from_args, stack_key
    from passk_tui.tui.app.early_start import start_early

    args = parse(argv)
    key = stack_key(args, os.environ)
    evaluation = new_evaluation(settings_from_args(args, os.environ), key)
    running = await start_early(evaluation)  # as run_app: the first Runs out, then the app
    from passk_tui.tui.app.app import PasskApp
    from passk_tui.tui.app.launch import form_values
    from passk_tui.tui.screens.results.screen import ResultsScreen

    values, _ = form_values(args, os.environ)
    app = PasskApp(form=values, env_key=key, start=evaluation, running=running)
    drawn = asyncio.Event()

    def arrived(screen: Screen[object]) -> None:
        """The Results screen pushed: hear its first layout, which draws its first frame."""
        if not isinstance(screen, ResultsScreen):
            return
        if screen._compositor.visible_widgets:  # laid out (and drawn) already
            drawn.set()
        else:
            screen.screen_layout_refresh_signal.subscribe(
                app, lambda _: drawn.set(), immediate=True
            )

    async with app.run_test(size=(160, 50)):
        app.screen_change_signal.subscribe(app, arrived, immediate=True)
        arrived(app.screen)  # a run that quick may have shown its results already
        while not drawn.is_set():
            if app.controller.failure is not None:
                sys.stderr.write(f"app_run: {app.controller.failure}\n")
                return 3
            # The failure checked again at least every 0.1 s: a failed run shows no results.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(drawn.wait(), 0.1)
        print(f"results-screen {time.monotonic() - START:.3f}", flush=True)
        progress = evaluation.progress
        print(
            f"finished {progress.finished}/{progress.total} passed {sum(progress.passed)}",
            flush=True,
        )
        leave(0)  # as passk-tui leaves once the app has closed (no teardown measured)
    return 0


START = time.monotonic()

if __name__ == "__main__":
    from passk_tui.cli.main import leave
    from passk_tui.core.run.gc_thresholds import relaxed_gc

    with relaxed_gc():  # as run_app runs the app (tui/app/launch.py)
        status = asyncio.run(drive(sys.argv[1:]))
    leave(status)  # as passk-tui leaves once the app has closed
