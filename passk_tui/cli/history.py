"""`passk-tui history`: every stored evaluation as a plain table on stdout, newest first."""

from __future__ import annotations

from passk_tui.cli.flags import parse_history
from passk_tui.cli.output import fail, print_out, say
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.core.render.table import plain_columns
from passk_tui.store import Store
from passk_tui.store.history import history_rows


def run_history(argv: list[str]) -> int:
    """`passk-tui history`: every stored evaluation as a plain table on stdout, newest first."""
    parse_history(argv)
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
