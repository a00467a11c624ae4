"""The HTML report's section on the judge: its agreement with itself, and what it cost."""

from __future__ import annotations

from passk_tui.core.reading.evaluation import EvaluationReading
from passk_tui.reports.html_page import esc


def judge_section(reading: EvaluationReading) -> list[str]:
    """The judge's agreement with itself (and its cost), when a case has a `judge` check."""
    lines = reading.judge_lines()
    if not lines:
        return []
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return [
        '<h2 id="judge">The judge</h2>',
        f"<ul>{items}</ul>",
        '<p class="note">Unanimous: every vote on the answer gave the same verdict. Fleiss\' '
        "kappa is the votes' agreement beyond chance, over the answers whose every vote gave "
        "a verdict. Each attempt below says its votes.</p>",
    ]
