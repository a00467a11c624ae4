"""The Textual app: owns the one evaluation worker and the exit status; the screens only read."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.driver import Driver
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.run.settings import Settings
from passk_tui.core.run.stop_signals import Stop, StopSignals
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.evaluations.settings_text import check_settings
from passk_tui.tui import messages
from passk_tui.tui.app_exit import exit_messages, exit_status
from passk_tui.tui.contrast import derived_variables
from passk_tui.tui.form import FormValues
from passk_tui.tui.last_used import load_theme, save_last_used, save_theme
from passk_tui.tui.pair_run import PairShown
from passk_tui.tui.palette_commands import screen_commands
from passk_tui.tui.screens.configure import ConfigureScreen
from passk_tui.tui.screens.confirm import ConfirmScreen
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.screens.view_actions import RerunRequested
from passk_tui.tui.screenshot_saving import ScreenshotSaving
from passk_tui.tui.terminal_guard import UnsafeCharacters
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from passk_tui.evaluations.pairing import PairedRun

#: Seconds to wait for the Runs in flight to be cancelled when quitting mid-run.
QUIT_GRACE = 10.0


def demo_settings() -> Settings:
    """The bundled demo: its suite, its local (simulated, flaky) agent, default settings."""
    settings = check_settings({}, demo=True).settings
    assert settings is not None  # nothing given: nothing can be wrong
    return settings


class PasskApp(ScreenshotSaving):
    """passk-tui: configure an evaluation, watch its attempts land, read the results.

    The evaluation runs in one asyncio worker on the app's loop (the engine is
    asyncio: no threads); screens repaint from its ``Progress`` on their timers.
    """

    CSS_PATH = "app.tcss"
    TITLE = "passk-tui"
    #: One instance: Textual keeps the lines it filtered per filter.
    GUARD: ClassVar[LineFilter] = UnsafeCharacters()

    BINDINGS: ClassVar[list[BindingType]] = [
        # q first: the keys line shows it where it works, Ctrl+Q where q would be typed.
        Binding("q", "quit", "Quit", show=False, tooltip="Quit (Ctrl+Q while typing)"),
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            priority=True,
            show=False,
            tooltip="Quit (Ctrl+Q; q where nothing is typed)",
        ),
        Binding("f2", "history", "History", show=False, tooltip="The stored evaluations (F2)"),
        Binding(
            "question_mark,f1",
            "help",
            "Help",
            tooltip="This screen's keys, the glyphs, what the figures mean (? or F1; F1 while typing)",
        ),
        Binding(
            "ctrl+p",
            "command_palette",
            "Commands",
            show=False,
            priority=True,
            tooltip="Every action of this screen in words, and the theme",
        ),
    ]

    def __init__(
        self,
        *,
        form: FormValues | None = None,
        env_key: str | None = None,
        offer_demo: bool = False,
        start: Evaluation | PairedRun | None = None,
        show_timing: bool = True,
        export_path: Path | None = None,
        notices: Sequence[str] = (),
        fail_on_regression: bool = False,
    ) -> None:
        super().__init__()
        self.form = form or {}
        self.env_key = env_key
        self.offer_demo = offer_demo
        self._start = start
        #: False in tests and snapshots: rates, clocks and durations show as dashes.
        self.show_timing = show_timing
        #: --export: where to write the results once the evaluation ends.
        self.export_path = export_path
        self._notices = list(notices)
        self.view: EvaluationView | None = None
        #: A baseline run beside the candidate (``self.view`` is the candidate's then).
        self.pair: PairShown | None = None
        self.fail_on_regression = fail_on_regression
        self.worker: Worker[str] | None = None
        #: Why the evaluation could not run (exit 3, or 2 for bad input met late).
        self.failure: InputError | RunError | None = None
        self._quit_when_stopped = False
        #: The stop signals received (SIGTERM, SIGHUP; the terminal closing counts as SIGHUP).
        self._stops = StopSignals()

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, but on a POSIX terminal one that stops the app when the terminal
        closes (``tui/terminal.py``) instead of hanging it."""
        default = super().get_driver_class()
        if os.name != "posix":
            return default
        from passk_tui.tui.terminal import driver_for

        return driver_for(default)

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables plus the app's text colours, made readable on this theme."""
        variables = super().get_css_variables()
        variables.update(derived_variables(variables))
        self.theme_variables = variables
        return variables

    def format_title(self, title: str, sub_title: str) -> Content:
        """``passk-tui · demo v1 · cases.toml`` in one colour (the dimmed half read at 4.4:1);
        a file or case name in it shown as written (escapes visible, never markup)."""
        return Content(terminal_safe(f"{title} · {sub_title}" if sub_title else title))

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then the guard that no line drawn holds a control character."""
        return [*super().get_line_filters(), self.GUARD]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast shows its text as written: its messages carry outside text (a stack's
        error, a file's path), so escapes are made visible and markup is never read
        (``markup`` is taken, as Textual's callers pass it, and not used)."""
        super().notify(
            terminal_safe_lines(message),
            title=terminal_safe(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP"):  # Ctrl-C is a key to Textual, not a signal
            signum = getattr(signal, name, None)
            if signum is None:  # no such signal here (Windows has no SIGHUP)
                continue
            # Not where the loop cannot take them (another thread, Windows): the default stays.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, TypeError):
                loop.add_signal_handler(signum, self._stop_for_signal, signum)
        theme = load_theme()
        if theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, lambda theme: save_theme(theme.name))
        # Started with flags, the run comes first: Configure is made only if the user goes
        # back to it (composing its form cost the run's first half-second).
        if self._start is not None:
            self._launch(self._start)
        else:
            self.push_screen(self._configure_screen())
        for notice in self._notices:
            # Plain text: a command or path with brackets in it is not markup.
            self.notify(notice, severity="warning", timeout=15, markup=False)

    # -- the evaluation ----------------------------------------------------------------

    @property
    def evaluation(self) -> Evaluation | None:
        return self.view.evaluation if self.view is not None else None

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def start_evaluation(
        self, settings: Settings, key: str | None, remember: FormValues | None = None
    ) -> None:
        """Load the cases and the target, then run; bad input is shown, nothing starts."""
        if self.running:
            self.notify("An evaluation is already running.", severity="warning")
            return
        from passk_tui.evaluations.new import new_evaluation

        self._start_new(lambda: new_evaluation(settings, key), remember)

    def _start_new(
        self, make: Callable[[], Evaluation | PairedRun], remember: FormValues | None
    ) -> None:
        """Make the evaluation (bad input is shown, nothing starts), remember the form, run."""
        try:
            evaluation = make()
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot start", severity="error", timeout=10, markup=False)
            return
        if remember is not None:
            save_last_used(remember)
        # A recorded evaluation says when its agent now runs as something else than before.
        for warning in getattr(evaluation, "warnings", ()):
            self.notify(warning, severity="warning", timeout=15, markup=False)
        self._launch(evaluation)

    def resume(self, ref: str, changes: dict[str, object] | None = None) -> None:
        """Continue a stored evaluation with its stored settings (only the key comes from here);
        ``changes``: settings given anew, as ``--resume ID --attempts N`` gives them."""
        if self.running:
            self.notify("An evaluation is already running.", severity="warning")
            return
        from passk_tui.evaluations.pairing import find_pair, resume_pair
        from passk_tui.evaluations.resume import resume_evaluation

        started: Evaluation | PairedRun
        try:
            pair = find_pair(ref)
            if pair is not None:  # either of a pair resumes both, as headless
                paired = resume_pair(pair, self.env_key, changes)
                warnings, started = paired.warnings, paired
            else:
                resumed = resume_evaluation(ref, self.env_key, changes)
                warnings, started = resumed.warnings, resumed.evaluation
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot resume", severity="error", timeout=10, markup=False)
            return
        for warning in warnings:
            self.notify(warning, severity="warning", timeout=15)
        self._launch(started)

    def start_demo(self) -> None:
        self.start_evaluation(demo_settings(), None)

    # -- what the screens ask for --------------------------------------------------------

    @on(messages.RunRequested)
    def _run_requested(self, message: messages.RunRequested) -> None:
        if message.baseline is not None:
            self.start_baseline(message.settings, message.baseline, message.key, message.remember)
            return
        self.start_evaluation(message.settings, message.key, remember=message.remember)

    def start_baseline(
        self, settings: Settings, baseline: int, key: str | None, remember: FormValues | None
    ) -> None:
        """Both versions in one run, their attempts in turn (as headless runs them), then
        their comparison."""
        if self.running:
            self.notify("An evaluation is already running.", severity="warning")
            return
        from passk_tui.evaluations.pairing import new_pair

        self._start_new(lambda: new_pair(settings, baseline, key), remember)

    @on(RerunRequested)
    def _rerun_requested(self, message: RerunRequested) -> None:
        """Results asked to rerun its failing cases: a new evaluation of the file it wrote."""
        self.start_evaluation(message.settings, self.env_key)

    @on(messages.DemoRequested)
    def _demo_requested(self) -> None:
        self.start_demo()

    @on(messages.ResumeRequested)
    def _resume_requested(self, message: messages.ResumeRequested) -> None:
        self.resume(message.ref)

    @on(messages.ExtendRequested)
    def _extend_requested(self, message: messages.ExtendRequested) -> None:
        self.resume(message.ref, {"attempts": message.attempts})

    @on(messages.CancelRequested)
    def _cancel_requested(self) -> None:
        self.cancel_evaluation()

    def _configure_screen(self) -> ConfigureScreen:
        return ConfigureScreen(self.form, env_key=self.env_key, offer_demo=self.offer_demo)

    @on(messages.ConfigureRequested)
    def _configure_requested(self) -> None:
        """Below the Run screen when the form started it, else made now in its place."""
        if any(isinstance(screen, ConfigureScreen) for screen in self.screen_stack):
            self.pop_screen()
        else:
            self.switch_screen(self._configure_screen())

    @on(messages.HistoryRequested)
    def _history_requested(self) -> None:
        self.action_history()

    @on(messages.CaseOpened)
    def _case_opened(self, message: messages.CaseOpened) -> None:
        self.show_case(message.view, message.case_index)

    @on(messages.AttemptsOpened)
    def _attempts_opened(self, message: messages.AttemptsOpened) -> None:
        from passk_tui.tui.screens.case import CaseScreen

        m = message
        self.push_screen(CaseScreen(m.view, m.case_index, m.attempts, m.about))

    @on(messages.ResultsOpened)
    def _results_opened(self, message: messages.ResultsOpened) -> None:
        from passk_tui.tui.screens.results import ResultsScreen

        self.push_screen(ResultsScreen(message.view))

    @on(messages.StoredEvaluationOpened)
    def _stored_opened(self, message: messages.StoredEvaluationOpened) -> None:
        """The live view when it is the evaluation running here, else what the store holds."""
        from passk_tui.store import Store
        from passk_tui.tui.screens.results import ResultsScreen

        here = self.view
        if here is not None and here.evaluation_id == message.evaluation_id and here.live:
            self.push_screen(ResultsScreen(here))
            return
        try:
            with Store.open() as store:
                stored = store.load(message.evaluation_id)
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot open", severity="error")
            return
        self.push_screen(ResultsScreen(EvaluationView.from_store(stored, self.show_timing)))

    @on(messages.CompareRequested)
    def _compare_requested(self, message: messages.CompareRequested) -> None:
        """Load both from the store and compare them in the core; show it, or why not."""
        from passk_tui.store import Store
        from passk_tui.store.comparison import load_compared
        from passk_tui.tui.screens.compare import CompareScreen

        try:
            with Store.open() as store:
                compared = load_compared(store, message.baseline, message.candidate)
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot compare", severity="error", timeout=10)
            return
        self.push_screen(CompareScreen(compared))

    def action_help(self) -> None:
        from passk_tui.tui.screens.help import HelpScreen  # made when asked for: not at start

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    # -- running ---------------------------------------------------------------------------

    def _launch(self, evaluation: Evaluation | PairedRun) -> None:
        """Run one evaluation, or a pair (both grids, then their comparison)."""
        from passk_tui.evaluations.pairing import PairedRun

        self.failure = None
        if isinstance(evaluation, PairedRun):
            self.pair = PairShown.of(evaluation, self.show_timing, self.fail_on_regression)
            self.view = self.pair.candidate
            screen = RunScreen(self.view, baseline=self.pair.baseline)
            if evaluation.shown_only:  # resumed with both done: only the comparison
                self._show_comparison()
                return
            run, close = evaluation.run, evaluation.aclose
        else:
            self.pair = None
            self.view = EvaluationView.running_here(evaluation)
            self.view.show_timing = self.show_timing
            screen = RunScreen(self.view)
            run, close = evaluation.run, evaluation.target.aclose
        self.worker = self.run_worker(
            self._run(run, close),
            name="evaluation",
            group="evaluation",
            exit_on_error=False,
        )
        self.push_screen(screen)

    async def _run(
        self, run: Callable[[], Awaitable[str]], close: Callable[[], Awaitable[None]]
    ) -> str:
        try:
            return await run()
        finally:
            await close()

    def cancel_evaluation(self) -> None:
        """Start nothing new and cancel the Runs in flight (of both, in a pair); what finished
        stays."""
        if self.pair is not None and self.running:
            self.pair.paired.cancel()
        elif self.evaluation is not None and self.running:
            self.evaluation.cancel()

    def _show_comparison(self) -> None:
        """A pair ended: its comparison, made by the core from what the store holds."""
        from passk_tui.tui.screens.compare import CompareScreen

        assert self.pair is not None
        try:
            compared = self.pair.compare()
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot compare", severity="error", timeout=15)
            return
        self.push_screen(CompareScreen(compared))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place the evaluation's end is handled: results, or why it could not run."""
        worker = event.worker
        if worker is not self.worker or not worker.is_finished:
            return
        # A question about the run (cancel?) is moot now: close it, so the run's end shows.
        while isinstance(self.screen, ConfirmScreen) and self.screen.about_run:
            self.pop_screen()
        self._export()
        if event.state == WorkerState.ERROR:
            error = worker.error
            if isinstance(error, InputError | RunError):
                self.failure = error
            else:
                self.failure = RunError(f"{type(error).__name__}: {error}")
            if self.view is not None:
                self.view.failed_with = str(self.failure)
            self.notify(str(self.failure), title="Could not run", severity="error", timeout=30)
        elif event.state == WorkerState.SUCCESS:
            status = worker.result
            if status == "failed":
                why = self.pair.paired.error if self.pair else None
                why = why or (self.view.error if self.view else None)
                self.failure = RunError(why or "the evaluation failed")
                self.notify(str(self.failure), title="Could not run", severity="error", timeout=30)
            elif self.pair is not None and not self._quit_when_stopped:
                self._show_comparison()
            elif isinstance(self.screen, RunScreen) and not self._quit_when_stopped:
                from passk_tui.tui.screens.results import ResultsScreen

                self.push_screen(ResultsScreen(self.screen.view))
            elif not self._quit_when_stopped:
                self.notify(f"The evaluation ended: {status}.")
        if self._quit_when_stopped:
            self.exit()

    def _export(self) -> None:
        """--export: write what the store holds of the evaluation that just ended (of a pair:
        their comparison, as headless writes it)."""
        evaluation = self.evaluation
        store = getattr(evaluation, "store", None)
        if self.export_path is None or evaluation is None or store is None:
            return
        from passk_tui.reports.compare_export import export_comparison
        from passk_tui.reports.export import export

        try:
            if self.pair is not None:
                export_comparison(self.pair.compare(), self.export_path)
            else:
                export(store.load(evaluation.evaluation_id), self.export_path)
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Export failed", severity="error", timeout=15)
        else:
            self.notify(f"Results written to {self.export_path}")

    # -- quitting and the exit status --------------------------------------------------

    async def action_quit(self) -> None:
        """Quit; mid-run, ask first, then cancel the Runs in flight before leaving."""
        if not self.running:
            self.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._quit_when_stopped = True
                self.cancel_evaluation()
                self.set_timer(QUIT_GRACE, self.exit)

        await self.push_screen(
            ConfirmScreen(
                "Quit while the evaluation runs?\n\nThe Runs in flight are cancelled first; "
                "the attempts that finished are kept.",
                yes="Quit",
                no="Keep running",
            ),
            answered,
        )

    def _stop_for_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: quit as asked from the keyboard (the Runs in flight withdrawn and
        cancelled first), so the terminal is restored; a second stop quits at once, the same
        signal again within half a second being the first delivered twice (``StopSignals``)."""
        stop = self._stops.receive(signum, time.monotonic())
        if stop is Stop.REPEAT:
            return
        if stop is Stop.NOW or not self.running:
            self.exit()
            return
        self._quit_when_stopped = True
        self.cancel_evaluation()
        self.set_timer(QUIT_GRACE, self.exit)

    def on_terminal_closed(self) -> None:
        """``terminal.TerminalClosed`` (by name: that module is POSIX-only): the terminal went
        away, so stop as SIGHUP does, unless a stop is already under way (the kernel's SIGHUP
        came first, or ours: a closed terminal is no second stop)."""
        if self.signalled is None:
            self._stop_for_signal(signal.SIGHUP)

    @property
    def signalled(self) -> int | None:
        """The first stop signal, if one ended the app: the exit status is 128 + it."""
        return self._stops.first

    @property
    def crash(self) -> RunError | None:
        """The exception that ended the app, if one did, as a could-not-run (exit 3) in one line.

        Textual prints its traceback and keeps the first such exception; without this the
        process exited 0 (or by the gate) as if the app had closed normally.
        """
        error = self._exception
        if error is None:
            return None
        text = " ".join(str(error).split())
        return RunError(
            terminal_safe(f"the app stopped on an error: {type(error).__name__}: {text}")
        )

    @property
    def exit_status(self) -> int:
        """The process's exit status (``app_exit.exit_status``)."""
        status = exit_status(self.signalled, self.crash or self.failure, self.view)
        return self.pair.exit_status(status) if self.pair else status

    def exit_messages(self) -> list[str]:
        """What to say on stderr once the terminal is back (``app_exit.exit_messages``)."""
        messages = exit_messages(self.crash or self.failure, self.view)
        if self.pair is None or self.crash or self.failure:
            return messages
        return self.pair.exit_messages(messages)

    def show_case(self, view: EvaluationView, case_index: int) -> None:
        """Open one case's attempts; the case screen is made once per evaluation and reused,
        so opening a case during a busy run costs an update, not a new screen."""
        from passk_tui.tui.screens.case import CaseScreen

        name = f"case-{view.evaluation_id}-{id(view)}"
        if not self.is_screen_installed(name):
            self.install_screen(CaseScreen(view, case_index), name)
        else:
            screen = self.get_screen(name)
            assert isinstance(screen, CaseScreen)
            screen.show_case(case_index)
        self.push_screen(name)

    # -- history and the command palette -----------------------------------------------

    def action_history(self) -> None:
        """Open the stored evaluations (not over another History)."""
        from passk_tui.tui.screens.history import HistoryScreen

        if not isinstance(self.screen, HistoryScreen):
            self.push_screen(HistoryScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette lists the app's own commands and every action bound on this screen."""
        yield from super().get_system_commands(screen)
        yield from screen_commands(screen, self.run_action)
