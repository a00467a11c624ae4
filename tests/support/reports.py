"""Evaluations for the report tests: awkward ones (hostile text, controls), large ones, and readers."""

from __future__ import annotations

import re
from fractions import Fraction

from passk_tui.core.attempt import AttemptRecord, Outcome
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.cases import Case
from passk_tui.reports.html_page import CLIP_CHARS
from passk_tui.store import Store, StoredEvaluation
from tests.support import records

HOSTILE = '<img src=x onerror="alert(1)"> & </details>'


#: One of each character a report must show as an escape: NUL, ESC (a colour), BEL, DEL, a C1
#: control, a right-to-left override, a bidi isolate, a line separator and a carriage return.
CONTROLS = "n\x00e\x1b[31mb\x07d\x7fc\x85r\u202eevil.exe i\u2066l\u2028c\rr"


#: An attempt's line in a case's attempts block: ``#3 ✗   1.20 s  ...`` (its number first).
ATTEMPT_LINE = re.compile(r"^ *#(\d+) (\S) +\d+\.\d\d s", re.M)


def awkward_evaluation(
    settings: Settings | None = None, *, scripts: dict[str, str] | None = None
) -> StoredEvaluation:
    """Cases with hostile names, a long answer, a cut-short case (fewer than k attempts), stored."""
    scripts = scripts or {
        "arithmetic": "PPWEP",
        HOSTILE: "WWWWE",
        "always": "PPPPP",
        "cut short": "PW",
    }
    names = list(scripts)
    cases = [Case(n, {"q": n}, None, {"equals": "391"}) for n in names]
    letter = {"P": Outcome.PASSED, "W": Outcome.WRONG, "E": Outcome.ERRORED}
    records = [
        AttemptRecord(
            case_index=i,
            case=name,
            attempt=a + 1,
            key=f"ev_r/{i}/{a + 1}",
            outcome=letter[ch],
            status="completed" if ch != "E" else "failed",
            output=None if ch == "E" else (LONG_ANSWER if name == "always" else f"<b>{a}</b>"),
            reason="expected '391', got '<b>'" if ch == "W" else None,
            error="tool <crashed> & burned" if ch == "E" else None,
            run_id=f"run_{i}_{a}",
            turn_id=f"turn_{i}_{a}",
            started=10.0,
            ended=11.5 + a,
        )
        for i, name in enumerate(names)
        for a, ch in enumerate(scripts[name])
    ]
    settings = settings or Settings(
        "bot<x>", 2, "/tmp/c.toml", attempts=5, k=3, require=Fraction(1, 2)
    )
    with Store.open() as store:
        store.create_evaluation("ev_r", settings, cases, "h", created=0.0)
        store.write("ev_r", records)
        store.finish("ev_r", "cancelled")
        loaded = store.load("ev_r")
    # The store keeps the settings it knows; a --confidence stored beside them reads back here.
    return StoredEvaluation(**{**_fields(loaded), "settings": settings})


def attempt_numbers(html: str) -> list[int]:
    """The attempt numbers the lines of ``html``'s attempts blocks start with, in order."""
    blocks = re.findall(r'<pre class="attempts \w+">(.*?)</pre>', html, re.S)
    return [int(n) for block in blocks for n, _ in ATTEMPT_LINE.findall(block)]


def assert_controls_shown(text: str) -> None:
    """No control or bidi character of CONTROLS is in ``text`` raw; each is there as its escape."""
    unsafe = {ch for ch in CONTROLS if ch < " " or "\x7f" <= ch <= "\x9f" or ch > "\u2000"}
    raw = sorted(ch for ch in unsafe if ch in text)
    assert not raw, raw
    for shown in CONTROL_ESCAPES:
        assert shown in text, shown


def evaluation(cases: int, attempts: int, outcome=lambda c, a: Outcome.PASSED) -> StoredEvaluation:
    """A finished evaluation of ``cases`` x ``attempts``, each attempt's outcome from ``outcome``."""
    return StoredEvaluation(
        id="ev_scale",
        created=0.0,
        finished=1.0,
        status="done",
        error=None,
        settings=Settings("bot", 1, "c.toml", attempts=attempts, k=3, require=Fraction(1, 2)),
        cases=[Case(f"case-{i}", f"q{i}", None, {"equals": "391"}) for i in range(cases)],
        cases_sha256="0" * 64,
        records=[record(c, a, outcome(c, a)) for c in range(cases) for a in range(1, attempts + 1)],
    )


CONTROL_ESCAPES = (
    "\\x00",
    "\\x1b[31m",
    "\\x07",
    "\\x7f",
    "\\x85",
    "\\u202e",
    "\\u2066",
    "\\u2028",
    "\\r",
)


LONG_ANSWER = "y" * (CLIP_CHARS * 5)


def _fields(stored: StoredEvaluation) -> dict:
    return {name: getattr(stored, name) for name in StoredEvaluation.__dataclass_fields__}


def record(case: int, attempt: int, outcome: Outcome, **fields: object) -> AttemptRecord:
    """One finished attempt of case ``case`` (answer "391" unless given), for the reports."""
    values: dict = {
        "case": f"case-{case}",
        "key": f"ev/{case}/{attempt}",
        "output": None if outcome is Outcome.ERRORED else "391",
        "reason": "expected '391'" if outcome is Outcome.WRONG else None,
        "error": "HTTP 503" if outcome is Outcome.ERRORED else None,
        "run_id": None,
        "turn_id": None,
        "started": 10.0,
        "ended": 11.25,
        "usage": None,
        **fields,
    }
    return records.record(case, attempt, outcome, **values)
