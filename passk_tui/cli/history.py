"""`passk-tui history`: every stored evaluation as a plain table on stdout, newest first;
with --flaky, one agent's flakiness over time."""

from __future__ import annotations

from passk_tui.cli.flags import parse_history
from passk_tui.cli.output import fail, print_out, say
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.core.reading.trends import TrendsReading
from passk_tui.core.render.flaky_text import plain_flakiness
from passk_tui.core.render.table import plain_columns
from passk_tui.store import Store
from passk_tui.store.history import history_rows
from passk_tui.store.trends import agent_series


def run_history(argv: list[str]) -> int:
    """`passk-tui history`: every stored evaluation as a plain table on stdout, newest first."""
    args = parse_history(argv)
    if args.flaky:
        return run_flaky(args.agent)
    try:
        with Store.open() as store:
            summaries = store.list_evaluations()
            where = store.path
    except (InputError, RunError) as exc:
        return fail(exc)
    if not summaries:
        say(f"no evaluations stored yet ({where})")
        return 0
    return 0 if print_out(plain_columns(history_rows(summaries))) else ExitCode.CANNOT_RUN


def run_flaky(agent: str | None) -> int:
    """`passk-tui history --flaky [--agent A]`: the table of cases, then the version changes."""
    try:
        with Store.open() as store:
            agent, series = agent_series(store, agent)
    except (InputError, RunError) as exc:
        return fail(exc)
    imported = sum(m.imported for m in series)
    versions = ", ".join(str(v) for v in sorted({m.version for m in series}))
    say(
        f"{agent}: {len(series)} evaluations ({imported} imported), versions {versions}; "
        "a verdict is the gate's, or all passed without one"
    )
    return 0 if print_out(plain_flakiness(TrendsReading(series).flakiness)) else ExitCode.CANNOT_RUN
