"""Fixed demo data for the views' tests: the demo suite's cases with known attempts, in a store."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from passk_tui import demo
from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import load_cases
from passk_tui.store import Store
from passk_tui.tui.view import EvaluationView

P, W, E = Outcome.PASSED, Outcome.WRONG, Outcome.ERRORED
EVALUATION_ID = "ev_views_demo"
WEATHER = "exit 1: weather tool: upstream timed out (simulated)"
RESET = "ConnectionResetError: [Errno 104] Connection reset by peer (run {})"
ADA = {"name": "Ada", "age": 36}

#: Per demo case, each attempt's (outcome, answer, error, status).
SCRIPT: dict[str, list[tuple[Outcome, object, str | None, str]]] = {
    "arithmetic": [(P, "391", None, "completed")] * 5,
    "capital": [
        (W, "Sydney", None, "completed"),
        (P, "Canberra", None, "completed"),
        (W, "Sydney", None, "completed"),
        (W, "Sydney", None, "completed"),
        (W, "Sydney", None, "completed"),
    ],
    "json-shape": [
        (P, ADA, None, "completed"),
        (W, {"name": "Ada", "age": "thirty-six"}, None, "completed"),
        (P, ADA, None, "completed"),
        (P, ADA, None, "completed"),
        (E, None, RESET.format("run_01JDX8Q2ZK4M7N9P0R3S5T6V8W"), "failed"),
    ],
    "summary": [
        (P, "The customer asks for a Refund of the duplicate charge.", None, "completed"),
        (W, "The customer is unhappy with the service.", None, "completed"),
        (E, None, RESET.format("run_01JDX9A7BC3D5F7G9H1J3K5M7N"), "failed"),
        (P, "The customer asks for a Refund of the duplicate charge.", None, "completed"),
        (P, "The customer asks for a Refund of the duplicate charge.", None, "completed"),
    ],
    "weather-tool": [
        (E, None, WEATHER, "failed"),
        (E, None, WEATHER, "failed"),
        (E, None, "no Turn within the 30 s deadline", "timed_out"),
        (E, None, WEATHER, "failed"),
        (P, "It is 21 °C and sunny in Lisbon.", None, "completed"),
    ],
}


def demo_records() -> list[AttemptRecord]:
    """The script as records: known durations, usage on the model-like cases, ids on some."""
    records = []
    for case_index, (case, attempts) in enumerate(SCRIPT.items()):
        for attempt, (outcome, output, error, status) in enumerate(attempts, start=1):
            seconds = 0.5 + 0.25 * attempt + case_index
            usage = (
                {"input_tokens": 40 + attempt, "output_tokens": 2 * attempt}
                if case in ("capital", "summary")
                else None
            )
            records.append(
                AttemptRecord(
                    case_index=case_index,
                    case=case,
                    attempt=attempt,
                    key=f"{EVALUATION_ID}:{case_index}:{attempt}",
                    outcome=outcome,
                    status=status,
                    output=output,
                    reason="expected 'canberra'" if outcome is W and case == "capital" else None,
                    error=error,
                    run_id=f"run_{case_index}{attempt}" if case == "capital" else None,
                    turn_id=f"turn_{case_index}{attempt}" if case == "capital" else None,
                    started=1000.0,
                    ended=1000.0 + seconds,
                    usage=usage,
                )
            )
    return records


def demo_view_settings(require: Fraction | None = Fraction(4, 5)) -> Settings:
    """The demo's own settings (so a rerun really runs the demo agent), with a 0.8 gate."""
    return Settings(
        agent=demo.AGENT,
        version=demo.VERSION,
        cases_path=str(demo.CASES),
        agents_path=str(demo.AGENTS),
        require=require,
    )


def stored_demo_view() -> EvaluationView:
    """The script written to the store (PASSK_DATA_DIR) and read back, as History opens it."""
    settings = demo_view_settings()
    cases = load_cases(demo.CASES)
    with Store.open() as store:
        store.create_evaluation(EVALUATION_ID, settings, cases, "0" * 64, created=1000.0)
        store.write(EVALUATION_ID, demo_records())
        store.finish(EVALUATION_ID, "done")
        stored = store.load(EVALUATION_ID)
    return EvaluationView(
        stored.id, stored.settings, stored.progress(), stored.cases, stored_status="done"
    )


def snapshot_view() -> EvaluationView:
    """The script without a store, its paths relative so a snapshot is the same on any machine."""
    stored = stored_demo_view()
    settings = replace(stored.settings, cases_path="cases.toml", agents_path="agents.toml")
    return replace(stored, settings=settings)
