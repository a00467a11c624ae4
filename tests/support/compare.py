"""Two stored evaluations to compare (the counts of PRODUCT.md's example) and the table they give."""

from __future__ import annotations

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.store import Store

BASELINE = {"arithmetic": (2, 8, 0), "json-shape": (8, 1, 1), "summary": (10, 0, 0)}


CANDIDATE = {"arithmetic": (9, 1, 0), "json-shape": (7, 3, 0), "summary": (3, 1, 6)}


def store_evaluation(
    evaluation_id: str,
    counts: dict[str, tuple[int, int, int]],
    *,
    created: float,
    k: int = 3,
    inputs: dict[str, str] | None = None,
    status: str | None = "done",
    version: int = 1,
    max_attempts: int | None = None,
) -> None:
    """An evaluation whose cases got these counts of passed, wrong and errored attempts."""
    names = list(counts)
    cases = [Case(name, (inputs or {}).get(name, name), None) for name in names]
    attempts = max(sum(c) for c in counts.values())
    records = []
    for index, name in enumerate(names):
        outcomes = [o for o, n in zip(COUNTED, counts[name], strict=True) for _ in range(n)]
        for attempt, outcome in enumerate(outcomes, start=1):
            records.append(
                AttemptRecord(
                    index, name, attempt, f"{evaluation_id}/{index}/{attempt}", outcome,
                    "failed" if outcome is Outcome.ERRORED else "completed",
                    "x", None, None, None, None, 0.0, 1.0,
                )
            )  # fmt: skip
    settings = Settings(
        "bot", version, "/x/cases.toml", attempts=attempts, k=k, max_attempts=max_attempts
    )
    with Store.open() as store:
        store.create_evaluation(evaluation_id, settings, cases, "h", created=created)
        store.write(evaluation_id, records)
        if status is not None:
            store.finish(evaluation_id, status)


PRODUCT_TABLE = """\
case        A passed  A errored  B passed  B errored  change  p     verdict
----------  --------  ---------  --------  ---------  ------  ----  ---------
arithmetic  2/10      0          9/10      0          +0.70   0.01  improved
json-shape  8/10      1          7/10      0          -0.10   1.00  unclear
summary     10/10     0          3/10      6          -0.70   0.01  regressed
1 improved, 1 regressed, 1 unclear
"""
#: The suite line of those three cases: the two big changes cancel out in the stratified odds.
PRODUCT_SUITE = (
    "suite: B better on 1 case, worse on 2, same on 0; "
    "odds ratio 0.90 (95% CI 0.35-2.25), p 0.79, unclear\n"
)

#: Twenty cases of 20 attempts each whose suite line is PRODUCT.md's, to the character:
#: B's passes per case, then A's. Seven went up, two down, eleven stayed (five at 20/20, three
#: at 0/20: no variation, they drop out of the stratified test).
SUITE_PASSES_B = [9, 14, 9, 19, 17, 8, 11, 12, 3, 0, 20, 20, 20, 4, 20, 0, 13, 20, 0, 20]
SUITE_PASSES_A = [5, 10, 3, 14, 16, 3, 7, 13, 4, 0, 20, 20, 20, 4, 20, 0, 13, 20, 0, 20]
SUITE_LINE = (
    "suite: B better on 7 cases, worse on 2, same on 11; "
    "odds ratio 1.85 (95% CI 1.21-2.83), p 0.004, improved"
)


def suite_counts(passes: list[int], n: int = 20) -> dict[str, tuple[int, int, int]]:
    """The twenty cases as ``store_evaluation`` counts (passed, wrong, errored)."""
    return {f"case-{i:02}": (c, n - c, 0) for i, c in enumerate(passes, start=1)}


#: The outcomes that count, in the order of the counts above (withdrawn ones count nowhere).
COUNTED = (Outcome.PASSED, Outcome.WRONG, Outcome.ERRORED)
