"""The run control: starting, resuming, extending and cancelling the app's one evaluation
(or pair), running it in one worker, and what its end shows, exports and records."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.worker import Worker, WorkerState

from passk_tui.core.errors import InputError, RunError
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.inputs.target_list import MatrixTarget
from passk_tui.core.run.engine import Evaluation
from passk_tui.evaluations.settings_text import validate
from passk_tui.tui.app import messages
from passk_tui.tui.app.screenshot_saving import ScreenshotSaving
from passk_tui.tui.dialogs.confirm import ConfirmScreen
from passk_tui.tui.matrix_run import MatrixShown
from passk_tui.tui.pair_run import PairShown
from passk_tui.tui.screens.configure.form import FormValues
from passk_tui.tui.screens.configure.last_used import save_last_used
from passk_tui.tui.screens.run import RunScreen
from passk_tui.tui.screens.view_actions import RerunRequested
from passk_tui.tui.view import EvaluationView

if TYPE_CHECKING:
    from textual.screen import Screen

    from passk_tui.evaluations.matrix import MatrixRun
    from passk_tui.evaluations.pairing import PairedRun


def demo_settings() -> Settings:
    """The bundled demo: its suite, its local (simulated, flaky) agent, default settings."""
    settings = validate({}, demo=True).settings
    assert settings is not None  # nothing given: nothing can be wrong
    return settings


class RunControl(ScreenshotSaving):
    """The app's one evaluation worker: what starts it, what cancels it, what its end does.

    The settings from the command line are the app's (``PasskApp.__init__`` sets them).
    """

    env_key: str | None
    show_timing: bool
    export_paths: list[Path]
    fail_on_regression: bool

    def __init__(self) -> None:
        super().__init__()
        self.view: EvaluationView | None = None
        #: A baseline run beside the candidate (``self.view`` is the candidate's then).
        self.pair: PairShown | None = None
        #: A matrix (``self.view`` is its first target's then).
        self.matrix: MatrixShown | None = None
        self.worker: Worker[str] | None = None
        #: Why the evaluation could not run (exit 3, or 2 for bad input met late).
        self.failure: InputError | RunError | None = None
        #: Quitting was asked for: the run's end exits the app instead of showing results.
        self._quit_when_stopped = False

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
        self, make: Callable[[], Evaluation | PairedRun | MatrixRun], remember: FormValues | None
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
        for warning in evaluation.warnings:
            self.notify(warning, severity="warning", timeout=15, markup=False)
        self._launch(evaluation)

    def resume(self, ref: str, changes: dict[str, object] | None = None) -> None:
        """Continue a stored evaluation with its stored settings (only the key comes from here);
        ``changes``: settings given anew, as ``--resume ID --attempts N`` gives them."""
        if self.running:
            self.notify("An evaluation is already running.", severity="warning")
            return
        from passk_tui.evaluations.matrix import find_group, resume_matrix
        from passk_tui.evaluations.pairing import find_pair, resume_pair
        from passk_tui.evaluations.resume import resume_evaluation

        started: Evaluation | PairedRun | MatrixRun
        try:
            group = find_group(ref)
            pair = find_pair(ref) if group is None else None
            if group is not None:  # any target of a matrix resumes them all, as headless
                matrix = resume_matrix(group, self.env_key, changes)
                warnings, started = matrix.warnings, matrix
            elif pair is not None:  # either of a pair resumes both, as headless
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

    @on(messages.RunRequested)
    def _run_requested(self, message: messages.RunRequested) -> None:
        if message.baseline is not None:
            self.start_baseline(message.settings, message.baseline, message.key, message.remember)
            return
        if message.targets:
            self.start_matrix(message.settings, message.targets, message.key, message.remember)
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

    def start_matrix(
        self,
        settings: Settings,
        targets: Sequence[MatrixTarget],
        key: str | None,
        remember: FormValues | None,
    ) -> None:
        """Every target in one run, their attempts in turn (as headless runs them), shown live
        on the Matrix screen."""
        if self.running:
            self.notify("An evaluation is already running.", severity="warning")
            return
        from passk_tui.evaluations.matrix import new_matrix

        self._start_new(lambda: new_matrix(settings, targets, key), remember)

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

    # -- running ---------------------------------------------------------------------------

    def _launch(
        self, evaluation: Evaluation | PairedRun | MatrixRun, running: Awaitable[str] | None = None
    ) -> None:
        """Run one evaluation, a pair (both grids, then their comparison) or a matrix (its
        screen, live); ``running``: the evaluation's run, started before the app was built
        (``tui/app/early_start.py``)."""
        from passk_tui.evaluations.matrix import MatrixRun
        from passk_tui.evaluations.pairing import PairedRun

        self.failure = None
        self.matrix = None
        run: Callable[[], Awaitable[str]]
        screen: Screen[None]
        if isinstance(evaluation, MatrixRun):
            self.pair = None
            self.matrix = MatrixShown.of(evaluation, self.show_timing, self.fail_on_regression)
            self.view = self.matrix.views[0]
            screen = matrix_screen(self.matrix, live=not evaluation.shown_only)
            if evaluation.shown_only:  # resumed with every target done: only the matrix
                self.push_screen(screen)
                return
            run, close = evaluation.run, evaluation.aclose
        elif isinstance(evaluation, PairedRun):
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
            close = evaluation.target.aclose
            # Begun before the app was built: taken over, not started again.
            run = evaluation.run if running is None else lambda: running
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
        if self.matrix is not None and self.running:
            self.matrix.matrix.cancel()
        elif self.pair is not None and self.running:
            self.pair.paired.cancel()
        elif self.evaluation is not None and self.running:
            self.evaluation.cancel()

    def _show_comparison(self) -> None:
        """A pair ended: its comparison, made by the core from what the store holds."""
        from passk_tui.tui.screens.compare.screen import CompareScreen

        assert self.pair is not None
        try:
            compared = self.pair.compare()
        except (InputError, RunError) as exc:
            self.notify(str(exc), title="Cannot compare", severity="error", timeout=15)
            return
        self.push_screen(CompareScreen(compared))

    def _show_matrix(self) -> None:
        """A matrix ended: its screen reads the store once more (or opens, if it was left)."""
        from passk_tui.tui.screens.matrix.screen import MatrixScreen

        assert self.matrix is not None
        for screen in self.screen_stack:
            if isinstance(screen, MatrixScreen):
                screen.stop_live()
        if not isinstance(self.screen, MatrixScreen):
            self.push_screen(matrix_screen(self.matrix, live=False))

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
                group = (
                    self.pair.paired if self.pair else self.matrix.matrix if self.matrix else None
                )
                why = group.error if group else None
                why = why or (self.view.error if self.view else None)
                self.failure = RunError(why or "the evaluation failed")
                self.notify(str(self.failure), title="Could not run", severity="error", timeout=30)
            elif self.pair is not None and not self._quit_when_stopped:
                self._show_comparison()
            elif self.matrix is not None and not self._quit_when_stopped:
                self._show_matrix()
            elif isinstance(self.screen, RunScreen) and not self._quit_when_stopped:
                from passk_tui.tui.screens.results.screen import ResultsScreen

                self.push_screen(ResultsScreen(self.screen.view))
            elif not self._quit_when_stopped:
                self.notify(f"The evaluation ended: {status}.")
        if self._quit_when_stopped:
            self.exit()

    def _export(self) -> None:
        """--export: write what the store holds of the evaluation that just ended (of a pair:
        their comparison, as headless writes it)."""
        from passk_tui.evaluations.recorded import RecordedEvaluation

        evaluation = self.evaluation  # of a pair: the candidate
        # A bare evaluation (no store behind it) has nothing stored to export.
        if not self.export_paths or not isinstance(evaluation, RecordedEvaluation):
            return
        from passk_tui.reports.compare_export import export_comparison
        from passk_tui.reports.export import export

        store = evaluation.store
        for path in self.export_paths:
            try:
                if self.matrix is not None:
                    from passk_tui.reports.matrix_export import export_matrix

                    export_matrix(self.matrix.reading(), path)
                elif self.pair is not None:
                    export_comparison(self.pair.compare(), path)
                else:
                    export(store.load(evaluation.evaluation_id), path)
            except (InputError, RunError) as exc:
                self.notify(str(exc), title="Export failed", severity="error", timeout=15)
            else:
                self.notify(f"Results written to {path}")


def matrix_screen(shown: MatrixShown, *, live: bool) -> Screen[None]:
    """The Matrix screen of ``shown``: its reading from the store, each target's view."""
    from passk_tui.tui.screens.matrix.screen import MatrixScreen

    return MatrixScreen(shown.reading, lambda target: shown.views[target], live=live)
