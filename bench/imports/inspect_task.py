"""The inspect_ai task whose logs are the import tests' fixtures (``make_fixtures.py`` runs it).

Six samples against ``fake_endpoint.py``, which answers 391 to case ``(#N)`` with chance N/5:
four whose target is 391 (cases #1 to #4: flaky), one always answered 391 whose target is 17
(always wrong), and one always answered whose solver fails on epochs 2 and 4 (errored, with
inspect's own error message).
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

QUESTION = "What is 17 * 23? Reply with the number only."


@solver
def fails_on_even_epochs() -> Solver:
    """Fails the sample named ``tool-error`` on its even epochs, as a broken tool would."""

    async def solve(state: TaskState, next_step: Generate) -> TaskState:
        if state.sample_id == "tool-error" and state.epoch % 2 == 0:
            raise RuntimeError(f"the calculator tool crashed on epoch {state.epoch}")
        return state

    return solve


@task
def arithmetic(epochs: int = 5) -> Task:
    samples = [
        Sample(id=f"product-{n}", input=f"{QUESTION} (#{n})", target="391") for n in range(1, 5)
    ]
    samples.append(Sample(id="never-right", input=f"{QUESTION} (#5)", target="17"))
    samples.append(Sample(id="tool-error", input=f"{QUESTION} (#5)", target="391"))
    return Task(
        dataset=samples,
        solver=[fails_on_even_epochs(), generate()],
        scorer=match(location="end", numeric=True),
        epochs=Epochs(int(epochs), ["pass_at_3", "mean"]),
    )
