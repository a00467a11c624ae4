"""The Textual app: its screens' wiring, its look and its start. It has a run controller
(``run_controller``), which owns the evaluation, and a way of quitting (``quitting``)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.driver import Driver
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.run.engine import Evaluation
from passk_tui.core.text.terminal_text import terminal_safe, terminal_safe_lines
from passk_tui.tui.app import messages, screenshot_saving
from passk_tui.tui.app.app_exit import app_exit_messages, app_exit_status, crash_error
from passk_tui.tui.app.palette_commands import screen_commands
from passk_tui.tui.app.quitting import Quitting
from passk_tui.tui.app.run_controller import RunController, RunRequest
from passk_tui.tui.app.terminal_guard import UnsafeCharacters
from passk_tui.tui.contrast import derived_variables
from passk_tui.tui.screens.configure.form import FormValues
from passk_tui.tui.screens.configure.last_used import load_theme, save_theme
from passk_tui.tui.screens.configure.screen import ConfigureScreen
from passk_tui.tui.screens.view_actions import RerunRequested
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from passk_tui.evaluations.matrix import MatrixRun
    from passk_tui.evaluations.matrix_reading import MatrixReading
    from passk_tui.evaluations.pairing import PairedRun


class PasskApp(App[Any]):
    """passk-tui: configure an evaluation, watch its attempts land, read the results.

    The evaluation runs in one asyncio worker on the app's loop (the engine is
    asyncio: no threads), started and ended by ``controller``; screens repaint from
    its ``Progress`` on their timers.
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
        start: Evaluation | PairedRun | MatrixRun | None = None,
        running: Awaitable[str] | None = None,
        show_timing: bool = True,
        export_paths: Sequence[Path] = (),
        notices: Sequence[str] = (),
        fail_on_regression: bool = False,
    ) -> None:
        super().__init__()
        self.form = form or {}
        self.env_key = env_key
        self.offer_demo = offer_demo
        self._start = start
        #: ``start``'s run, when it began before the app was built (``tui/app/early_start.py``).
        self._started_run = running
        #: False in tests and snapshots: rates, clocks and durations show as dashes.
        self.show_timing = show_timing
        self._notices = list(notices)
        #: The app's one evaluation: what starts, cancels and ends it.
        self.controller = RunController(
            self,
            env_key=env_key,
            show_timing=show_timing,
            export_paths=export_paths,
            fail_on_regression=fail_on_regression,
        )
        #: How the app stops (keys, signals, the terminal closing), the run cancelled first.
        self.quitting = Quitting(self, self.controller)

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, but on a POSIX terminal one that stops the app when the terminal
        closes (``tui/app/terminal.py``) instead of hanging it."""
        default = super().get_driver_class()
        if os.name != "posix":
            return default
        from passk_tui.tui.app.terminal import driver_for

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
        self.quitting.take_stop_signals()
        theme = load_theme()
        if theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, lambda theme: save_theme(theme.name))
        # Started with flags, the run comes first: Configure is made only if the user goes
        # back to it (composing its form cost the run's first half-second).
        if self._start is not None:
            self.controller.launch(self._start, self._started_run)
        else:
            self.push_screen(self._configure_screen())
        for notice in self._notices:
            # Plain text: a command or path with brackets in it is not markup.
            self.notify(notice, severity="warning", timeout=15, markup=False)

    # -- what the screens ask for --------------------------------------------------------

    @on(messages.RunRequested)
    @on(messages.DemoRequested)
    @on(messages.ResumeRequested)
    @on(messages.ExtendRequested)
    @on(messages.CancelRequested)
    @on(RerunRequested)
    def _run_requested(self, request: RunRequest) -> None:
        """Whatever a screen asks of the run is the run controller's to do."""
        self.controller.take(request)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The evaluation's worker (the one on the app) ended, or changed: the controller's."""
        self.controller.worker_changed(event)

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
        from passk_tui.tui.screens.results.screen import ResultsScreen

        self.push_screen(ResultsScreen(message.view))

    @on(messages.StoredEvaluationOpened)
    def _stored_opened(self, message: messages.StoredEvaluationOpened) -> None:
        """The live view when it is the evaluation running here, else what the store holds."""
        from passk_tui.store import Store
        from passk_tui.tui.screens.results.screen import ResultsScreen

        here = self.controller.view
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
        from passk_tui.tui.screens.compare.screen import CompareScreen

        try:
            with Store.open() as store:
                compared = load_compared(store, message.baseline, message.candidate)
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot compare", severity="error", timeout=10)
            return
        self.push_screen(CompareScreen(compared))

    @on(messages.MatrixRequested)
    def _matrix_requested(self, message: messages.MatrixRequested) -> None:
        """The stored matrix the evaluation ran in, read again each time it is shown."""
        from passk_tui.evaluations.matrix_reading import stored_matrix
        from passk_tui.tui.screens.matrix.screen import MatrixScreen

        try:
            reading = stored_matrix(message.ref)
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot open", severity="error")
            return
        if reading is None:
            return
        group = reading.group_id

        def again() -> MatrixReading:
            return stored_matrix(group) or reading

        def view_of(target: int) -> EvaluationView:
            return EvaluationView.from_store(reading.stored[target], self.show_timing)

        self.push_screen(MatrixScreen(again, view_of))

    def action_help(self) -> None:
        from passk_tui.tui.dialogs.help import HelpScreen  # made when asked for: not at start

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

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

    # -- quitting and how the process ends --------------------------------------------

    async def action_quit(self) -> None:
        """Quit; mid-run, ask first, then cancel the Runs in flight before leaving."""
        await self.quitting.asked()

    def action_help_quit(self) -> None:
        """Ctrl+C (which Textual binds to this, not to quitting): which key quits, in plain
        words (Textual's own says it in markup, which ``notify`` shows as written)."""
        self.quitting.say_how()

    def on_terminal_closed(self) -> None:
        """``terminal.TerminalClosed`` (by name: that module is POSIX-only)."""
        self.quitting.terminal_closed()

    @property
    def crash(self) -> RunError | None:
        """The exception that ended the app, if one did, as a could-not-run (``crash_error``)."""
        return crash_error(self._exception)

    @property
    def exit_status(self) -> int:
        """The process's exit status (``app_exit.app_exit_status``)."""
        return app_exit_status(self.controller, self.quitting.signalled, self.crash)

    def exit_messages(self) -> list[str]:
        """What to say on stderr once the terminal is back (``app_exit.app_exit_messages``)."""
        return app_exit_messages(self.controller, self.crash)

    # -- screenshots -------------------------------------------------------------------

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Saved where it can be, spaces kept (``screenshot_saving.deliver_screenshot``)."""
        return screenshot_saving.deliver_screenshot(self, filename, path, time_format)

    def on_delivery_complete(self, event: events.DeliveryComplete) -> None:
        screenshot_saving.say_saved(self, event)

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        screenshot_saving.say_not_saved(self, event)
