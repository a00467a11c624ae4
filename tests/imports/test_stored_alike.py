"""An import's records read back from the store equal those it showed as it stored them.

The import shows its evaluation from the records in memory, never read back (50,000 of them),
and writes them with the columns they all share as constants in the statement
(``store.rows.IMPORTED_CONSTANTS``): this holds the two to the same values, field by field,
for every format's fixture.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest

from passk_tui.evaluations.imported import ImportView, import_files
from passk_tui.store import Store

FIXTURES = Path(__file__).parent.parent / "fixtures" / "imports"
LOGS = [
    ("inspect", ["inspect-run1.eval"]),
    ("inspect", ["inspect-run1.json"]),
    ("inspect", ["inspect-tools.eval"]),
    ("promptfoo", ["promptfoo-results.json"]),
    ("tau-bench", ["tau-bench-results.json"]),
    ("tau-bench", ["tau2-airline.json", "tau2-retail.json"]),
    ("lm-eval", [next((FIXTURES / "lm-eval" / "run1").glob("samples_*")).relative_to(FIXTURES)]),
]


@pytest.mark.parametrize(("tool", "names"), LOGS, ids=[" ".join(map(str, n)) for _, n in LOGS])
def test_the_stored_records_are_those_shown(
    app_env: Path, tool: str, names: list[str | Path]
) -> None:
    imported = import_files(tool, [FIXTURES / name for name in names], {}, ImportView())
    shown = imported.stored.records
    with Store.open() as store:
        stored = store.load(imported.evaluation_id).records
    assert len(stored) == len(shown) > 0
    # The transcripts are held by the store alone once written (the import drops them).
    for kept, read in zip(shown, stored, strict=True):
        for field in fields(kept):
            if field.name != "transcript":
                assert getattr(read, field.name) == getattr(kept, field.name), field.name
    assert [replace(r, transcript=None) for r in stored] == [
        replace(r, transcript=None) for r in shown
    ]
