"""A nightly-style series in the store: the same agent's cases run night after night, the
version changing twice, for the tests of `history --flaky` and of the Trends view.

Version 1 runs four nights, version 2 two (with a gate, pass@1 at least 0.95), version 3
one. ``steady`` always passes, ``hard`` never does; ``flipper`` misses one attempt in ten on
some nights, so its verdict flips with nothing changed; ``moved`` passes every attempt under
version 1 and nearly none from version 2 on: it really moved.
"""

from __future__ import annotations

from fractions import Fraction

from passk_tui.core.attempt import Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.store import Store
from tests.support.records import record

AGENT = "nightly-bot"
CASE_NAMES = ("steady", "flipper", "moved", "hard")
ATTEMPTS = 10
#: A night a day apart, from 2026-11-01 (UTC).
FIRST_NIGHT = 1_793_491_200.0
DAY = 86_400.0

#: (version, gate or None, passes per case in CASE_NAMES' order), night by night.
NIGHTS: tuple[tuple[int, Fraction | None, tuple[int, ...]], ...] = (
    (1, None, (10, 10, 10, 0)),
    (1, None, (10, 9, 10, 0)),
    (1, None, (10, 10, 10, 0)),
    (1, None, (10, 9, 10, 0)),
    (2, Fraction(95, 100), (10, 10, 2, 0)),
    (2, Fraction(95, 100), (10, 9, 1, 0)),
    (3, None, (10, 10, 2, 0)),
)


def store_nightly_series(
    store: Store,
    agent: str = AGENT,
    first: float = FIRST_NIGHT,
    nights: tuple[tuple[int, Fraction | None, tuple[int, ...]], ...] = NIGHTS,
) -> list[str]:
    """Every night of ``nights`` stored as a finished evaluation of ``agent``; their ids."""
    cases = [Case(name, name, None) for name in CASE_NAMES]
    ids = []
    for night, (version, gate, passes) in enumerate(nights):
        evaluation_id = f"ev_{agent}_{night + 1}"
        settings = Settings(agent, version, "/x/cases.toml", attempts=ATTEMPTS, k=1, require=gate)
        store.create_evaluation(evaluation_id, settings, cases, "h", created=first + night * DAY)
        store.write(
            evaluation_id,
            [
                record(
                    index,
                    attempt,
                    Outcome.PASSED if attempt <= passed else Outcome.WRONG,
                    case=name,
                    key=f"{evaluation_id}/{index}/{attempt}",
                )
                for index, (name, passed) in enumerate(zip(CASE_NAMES, passes, strict=True))
                for attempt in range(1, ATTEMPTS + 1)
            ],
        )
        store.finish(evaluation_id, "done")
        ids.append(evaluation_id)
    return ids
