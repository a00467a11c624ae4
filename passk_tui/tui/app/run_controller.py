"""The run controller: the app's one evaluation (or pair, or matrix), started, resumed,
extended and cancelled here, run in one worker on the app, and what its end shows.

The app holds one (``PasskApp.controller``) and hands it every request about the run
that a screen posts; the rest of the app reads what it holds (``view``, ``running``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from textual.worker import Worker, WorkerState

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.core.run.engine import Evaluation, Interleaved
from passk_tui.evaluations.settings_text import validate
from passk_tui.tui.app import messages
from passk_tui.tui.app.run_export import export_ended
from passk_tui.tui.dialogs.confirm import ConfirmScreen
from passk_tui.tui.matrix_run import MatrixShown
from passk_tui.tui.pair_run import PairShown
from passk_tui.tui.screens.configure.form import FormValues
from passk_tui.tui.screens.configure.last_used import save_last_used
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.screens.view_actions import RerunRequested
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from passk_tui.evaluations.matrix import MatrixRun
    from passk_tui.evaluations.pairing import PairedRun

#: What a screen may ask of the run (posted to the app, which hands it to ``RunController.take``).
RunRequest: TypeAlias = (
    messages.RunRequested
    | messages.DemoRequested
    | messages.ResumeRequested
    | messages.ExtendRequested
    | messages.CancelRequested
    | RerunRequested
)


def demo_settings() -> Settings:
    """The bundled demo: its suite, its local (simulated, flaky) agent, default settings."""
    settings = validate({}, demo=True).settings
    assert settings is not None  # nothing given: nothing can be wrong
    return settings


class RunController:
    """The app's one evaluation worker: what starts it, what cancels it, what its end does."""

    def __init__(
        self,
        app: App[Any],
        *,
        env_key: str | None,
        show_timing: bool,
        export_paths: Sequence[Path] = (),
        fail_on_regression: bool = False,
    ) -> None:
        #: Where the worker runs and the screens are shown: the app that holds this.
        self._app = app
        self._env_key = env_key
        self._show_timing = show_timing
        #: --export (given again: each): where to write the results once the evaluation ends.
        self._export_paths = list(export_paths)
        self._fail_on_regression = fail_on_regression
        self.view: EvaluationView | None = None
        #: A baseline run beside the candidate (``view`` is the candidate's then).
        self.pair: PairShown | None = None
        #: A matrix (``view`` is its first target's then).
        self.matrix: MatrixShown | None = None
        self.worker: Worker[str] | None = None
        #: Why the evaluation could not run (exit 3, or 2 for bad input met late).
        self.failure: InputError | RunError | None = None
        #: Quitting was asked for: the run's end exits the app instead of showing results.
        self._quit_when_stopped = False

    # -- what is running ------------------------------------------------------------------

    @property
    def evaluation(self) -> Evaluation | None:
        """The evaluation shown (of a pair: the candidate; of a matrix: its first target)."""
        return self.view.evaluation if self.view is not None else None

    @property
    def running(self) -> bool:
        """Whether the worker is still running the evaluation."""
        return self.worker is not None and not self.worker.is_finished

    # -- what the screens ask for ---------------------------------------------------------

    def take(self, request: RunRequest) -> None:
        """Do what a screen asked of the run (one of ``RunRequest``)."""
        match request:
            case messages.RunRequested(baseline=int(baseline)):
                self._start_baseline(request.settings, baseline, request.key, request.remember)
            case messages.RunRequested(targets=targets) if targets:
                self._start_matrix(request.settings, targets, request.key, request.remember)
            case messages.RunRequested():
                self.start_evaluation(request.settings, request.key, remember=request.remember)
            case RerunRequested():  # Results' failing cases: a new evaluation of the file it wrote
                self.start_evaluation(request.settings, self._env_key)
            case messages.DemoRequested():
                self._start_demo()
            case messages.ResumeRequested():
                self.resume(request.ref)
            case messages.ExtendRequested():
                self.resume(request.ref, {"attempts": request.attempts})
            case messages.CancelRequested():
                self.cancel_evaluation()

    def start_evaluation(
        self, settings: Settings, key: str | None, remember: FormValues | None = None
    ) -> None:
        """Load the cases and the target, then run; bad input is shown, nothing starts."""
        from passk_tui.evaluations.new import new_evaluation

        self._start_new(lambda: new_evaluation(settings, key), remember)

    def _start_demo(self) -> None:
        """Run the bundled demo."""
        self.start_evaluation(demo_settings(), None)

    def _start_baseline(
        self, settings: Settings, baseline: int, key: str | None, remember: FormValues | None
    ) -> None:
        """Both versions in one run, their attempts in turn (as headless runs them), then
        their comparison."""
        from passk_tui.evaluations.pairing import new_pair

        self._start_new(lambda: new_pair(settings, baseline, key), remember)

    def _start_matrix(
        self,
        settings: Settings,
        targets: Sequence[MatrixTarget],
        key: str | None,
        remember: FormValues | None,
    ) -> None:
        """Every target in one run, their attempts in turn (as headless runs them), shown live
        on the Matrix screen."""
        from passk_tui.evaluations.matrix import new_matrix

        self._start_new(lambda: new_matrix(settings, targets, key), remember)

    def _start_new(
        self, make: Callable[[], Evaluation | PairedRun | MatrixRun], remember: FormValues | None
    ) -> None:
        """Make the evaluation (bad input is shown, nothing starts), remember the form, run."""
        if self._refused_while_running():
            return
        try:
            evaluation = make()
        except (InputError, RunError) as exc:
            self._app.notify(str(exc), title="Cannot start", severity="error", timeout=10)
            return
        if remember is not None:
            save_last_used(remember)
        # A recorded evaluation says when its agent now runs as something else than before.
        self._say_warnings(evaluation.warnings)
        self.launch(evaluation)

    def resume(self, ref: str, changes: dict[str, object] | None = None) -> None:
        """Continue a stored evaluation with its stored settings (only the key comes from here);
        ``changes``: settings given anew, as ``--resume ID --attempts N`` gives them."""
        if self._refused_while_running():
            return
        from passk_tui.evaluations.matrix import find_group, resume_matrix
        from passk_tui.evaluations.pairing import find_pair, resume_pair
        from passk_tui.evaluations.resume import resume_evaluation

        started: Evaluation | PairedRun | MatrixRun
        try:
            group = find_group(ref)
            pair = find_pair(ref) if group is None else None
            if group is not None:  # any target of a matrix resumes them all, as headless
                matrix = resume_matrix(group, self._env_key, changes)
                warnings, started = matrix.warnings, matrix
            elif pair is not None:  # either of a pair resumes both, as headless
                paired = resume_pair(pair, self._env_key, changes)
                warnings, started = paired.warnings, paired
            else:
                resumed = resume_evaluation(ref, self._env_key, changes)
                warnings, started = resumed.warnings, resumed.evaluation
        except (InputError, RunError) as exc:
            self._app.notify(str(exc), title="Cannot resume", severity="error", timeout=10)
            return
        self._say_warnings(warnings)
        self.launch(started)

    def cancel_evaluation(self) -> None:
        """Start nothing new and cancel the Runs in flight (of both, in a pair); what finished
        stays."""
        if not self.running:
            return
        if self.matrix is not None:
            self.matrix.matrix.cancel()
        elif self.pair is not None:
            self.pair.paired.cancel()
        elif self.evaluation is not None:
            self.evaluation.cancel()

    def cancel_to_quit(self) -> None:
        """Quitting mid-run: cancel as the user's cancel does; its end then exits the app."""
        self._quit_when_stopped = True
        self.cancel_evaluation()

    def _refused_while_running(self) -> bool:
        """One evaluation at a time: another asked for meanwhile is refused, and said so."""
        if self.running:
            self._app.notify("An evaluation is already running.", severity="warning")
        return self.running

    def _say_warnings(self, warnings: Sequence[str]) -> None:
        for warning in warnings:
            self._app.notify(warning, severity="warning", timeout=15)

    # -- running ---------------------------------------------------------------------------

    def launch(
        self, evaluation: Evaluation | PairedRun | MatrixRun, running: Awaitable[str] | None = None
    ) -> None:
        """Run one evaluation, a pair (both grids, then their comparison) or a matrix (its
        screen, live); ``running``: the evaluation's run, started before the app was built
        (``tui/app/early_start.py``), taken over here."""
        from passk_tui.evaluations.matrix import MatrixRun
        from passk_tui.evaluations.pairing import PairedRun

        self.failure = None
        self.matrix = None
        run: Callable[[], Awaitable[str]]
        screen: Screen[None]
        if isinstance(evaluation, MatrixRun):
            self.pair = None
            self.matrix = MatrixShown.of(evaluation, self._show_timing, self._fail_on_regression)
            self.view = self.matrix.views[0]
            screen = matrix_screen(self.matrix, live=not evaluation.shown_only)
            if evaluation.shown_only:  # resumed with every target done: only the matrix
                self._app.push_screen(screen)
                return
            run, close = evaluation.run, evaluation.aclose
        elif isinstance(evaluation, PairedRun):
            self.pair = PairShown.of(evaluation, self._show_timing, self._fail_on_regression)
            self.view = self.pair.candidate
            screen = RunScreen(self.view, baseline=self.pair.baseline)
            if evaluation.shown_only:  # resumed with both done: only the comparison
                self._show_comparison()
                return
            run, close = evaluation.run, evaluation.aclose
        else:
            self.pair = None
            self.view = EvaluationView.running_here(evaluation)
            self.view.show_timing = self._show_timing
            screen = RunScreen(self.view)
            # Its target, its judges' and its simulated users' (as headless closes them).
            close = Interleaved([evaluation]).aclose
            # Begun before the app was built: taken over, not started again.
            run = evaluation.run if running is None else lambda: running
        self.worker = self._app.run_worker(
            _run(run, close), name="evaluation", group="evaluation", exit_on_error=False
        )
        self._app.push_screen(screen)

    # -- its end ---------------------------------------------------------------------------

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """The one place the evaluation's end is handled: results, or why it could not run."""
        worker = event.worker
        if worker is not self.worker or not worker.is_finished:
            return
        app = self._app
        # A question about the run (cancel?) is moot now: close it, so the run's end shows.
        while isinstance(app.screen, ConfirmScreen) and app.screen.about_run:
            app.pop_screen()
        export_ended(self._export_paths, self.evaluation, self.pair, self.matrix, app)
        if event.state == WorkerState.ERROR:
            error = worker.error
            if isinstance(error, InputError | RunError):
                self.failure = error
            else:
                self.failure = RunError(f"{type(error).__name__}: {error}")
            if self.view is not None:
                self.view.failed_with = str(self.failure)
            app.notify(str(self.failure), title="Could not run", severity="error", timeout=30)
        elif event.state == WorkerState.SUCCESS:
            self._succeeded(worker.result)
        if self._quit_when_stopped:
            app.exit()

    def _succeeded(self, status: str | None) -> None:
        """The worker ended with the run's status: why it failed, or what its end shows (none
        when quitting)."""
        app = self._app
        if status == "failed":
            group = self.pair.paired if self.pair else self.matrix.matrix if self.matrix else None
            why = group.error if group else None
            why = why or (self.view.error if self.view else None)
            self.failure = RunError(why or "the evaluation failed")
            app.notify(str(self.failure), title="Could not run", severity="error", timeout=30)
        elif self._quit_when_stopped:
            return
        elif self.pair is not None:
            self._show_comparison()
        elif self.matrix is not None:
            self._show_matrix()
        elif isinstance(app.screen, RunScreen):
            from passk_tui.tui.screens.results.screen import ResultsScreen

            app.push_screen(ResultsScreen(app.screen.view))
        else:
            app.notify(f"The evaluation ended: {status}.")

    def _show_comparison(self) -> None:
        """A pair ended: its comparison, made by the core from what the store holds."""
        from passk_tui.tui.screens.compare.screen import CompareScreen

        assert self.pair is not None
        try:
            compared = self.pair.compare()
        except (InputError, RunError) as exc:
            self._app.notify(str(exc), title="Cannot compare", severity="error", timeout=15)
            return
        self._app.push_screen(CompareScreen(compared))

    def _show_matrix(self) -> None:
        """A matrix ended: its screen reads the store once more (or opens, if it was left)."""
        from passk_tui.tui.screens.matrix.screen import MatrixScreen

        assert self.matrix is not None
        for screen in self._app.screen_stack:
            if isinstance(screen, MatrixScreen):
                screen.stop_live()
        if not isinstance(self._app.screen, MatrixScreen):
            self._app.push_screen(matrix_screen(self.matrix, live=False))


async def _run(run: Callable[[], Awaitable[str]], close: Callable[[], Awaitable[None]]) -> str:
    """The worker's work: the run to its end, then its targets closed, however it ended."""
    try:
        return await run()
    finally:
        await close()


def matrix_screen(shown: MatrixShown, *, live: bool) -> Screen[None]:
    """The Matrix screen of ``shown``: its reading from the store, each target's view."""
    from passk_tui.tui.screens.matrix.screen import MatrixScreen

    return MatrixScreen(shown.reading, lambda target: shown.views[target], live=live)
