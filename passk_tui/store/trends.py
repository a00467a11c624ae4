"""An agent's stored evaluations as a series over time: what `history --flaky` and Trends read.

Each evaluation is read once here into a ``Measurement``: its version, its cases' counts,
each case's verdict as the evaluation itself gives it (its gate's, as Results reads it,
when it had ``--require``; else "all passed"), whether its n was chosen by looking, and the
interval method its figures call for. Imported evaluations are stored as any other, so they
take part as they are.
"""

from __future__ import annotations

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.agent_definition import IMPORT_KIND
from passk_tui.core.run.sampling import reading
from passk_tui.core.stats.rates.interval_choice import evaluation_choice, n_chosen_by_looking
from passk_tui.core.stats.trends.flakiness import Measurement
from passk_tui.core.text.mentions import near_hint
from passk_tui.store.database import Store
from passk_tui.store.models import StoredEvaluation


class NoSeries(InputError):
    """No stored evaluation to read: an empty store, or none of the agent asked for (exit 2)."""


def measurement(stored: StoredEvaluation) -> Measurement:
    """One stored evaluation as the series reads it: counts, verdicts, method."""
    figures = stored.figures()
    settings = stored.settings
    verdicts: dict[str, bool] = {}
    if settings.require is not None:
        for case in reading(figures, settings).cases:
            if case.verdict in ("pass", "fail"):
                verdicts[case.figures.name] = case.verdict == "pass"
    else:
        for f in figures:
            if f.all_passed is not None:
                verdicts[f.name] = f.all_passed
    definition = stored.definition or {}
    return Measurement(
        id=stored.id,
        created=stored.created,
        version=settings.version,
        figures=tuple(figures),
        verdicts=verdicts,
        looked=n_chosen_by_looking(settings),
        method=evaluation_choice(settings, figures).method,
        imported=definition.get("kind") == IMPORT_KIND,
    )


def agent_series(store: Store, agent: str | None = None) -> tuple[str, list[Measurement]]:
    """The agent (``agent``, else the newest evaluation's) and its evaluations oldest first.

    Evaluations that never got an attempt (``not started``) have nothing to read and are left
    out. NoSeries when the store is empty or holds no evaluation of ``agent``.
    """
    summaries = store.list_evaluations()
    if not summaries:
        raise NoSeries(f"no evaluations stored yet ({store.path})")
    if agent is None:
        agent = summaries[0].agent
    mine = [s for s in summaries if s.agent == agent]
    if not mine:
        known = sorted({s.agent for s in summaries})
        raise NoSeries(
            f"--agent: no stored evaluation of agent {agent!r}{near_hint(agent, known)}; "
            f"stored: {', '.join(known)}"
        )
    oldest_first = sorted((s for s in mine if s.attempted), key=lambda s: (s.created, s.id))
    if not oldest_first:
        raise NoSeries(f"no attempt of agent {agent!r} is stored: its evaluations never started")
    return agent, [measurement(store.load(s.id)) for s in oldest_first]
