"""A ``Comparison`` as text: the plain table PRODUCT.md shows, the count line, the notes under it."""

from __future__ import annotations

from fractions import Fraction

from passk_tui.core.stats.compare import CaseComparison, ChangeVerdict, Comparison
from passk_tui.core.stats.figures import CaseFigures, two_decimals
from passk_tui.core.text.table import plain_columns

HEADERS = ("case", "A passed", "A errored", "B passed", "B errored", "change", "p", "verdict")


def signed(value: Fraction | None) -> str:
    """A change as shown: its sign always (0 alone has none), two decimals; ``-`` if undefined."""
    if value is None or value == 0:
        return two_decimals(value)
    return f"{float(value):+.2f}" if value > 0 else f"-{float(-value):.2f}"


def passed_cell(f: CaseFigures) -> str:
    return f"{f.passed}/{f.n}"


def comparison_rows(comparison: Comparison) -> list[tuple[str, ...]]:
    """Header then one row per compared case, in A's order, every cell as text."""
    rows: list[tuple[str, ...]] = [HEADERS]
    for c in comparison.cases:
        rows.append(
            (
                c.name,
                passed_cell(c.a),
                str(c.a.errored),
                passed_cell(c.b),
                str(c.b.errored),
                signed(c.change),
                two_decimals(c.p),
                str(c.verdict),
            )
        )
    return rows


def count_line(comparison: Comparison) -> str:
    """``1 improved, 1 regressed, 1 unclear``: counts, never a mean."""
    return ", ".join(f"{len(comparison.with_verdict(v))} {v}" for v in ChangeVerdict)


def only_lines(comparison: Comparison) -> list[str]:
    """The cases in only one of the two, which are not compared."""
    return [
        f"only in {side}: {', '.join(names)}"
        for side, names in (("A", comparison.only_a), ("B", comparison.only_b))
        if names
    ]


def errored_note(c: CaseComparison) -> str:
    """Why a regression points at the platform: its extra non-passes are mostly errored."""
    return (
        f"{c.name}: the drop is mostly errored attempts (A {c.a.errored}/{c.a.n} errored, "
        f"B {c.b.errored}/{c.b.n}): look at the platform, a provider or a tool before the agent"
    )


def notes(comparison: Comparison) -> list[str]:
    """What follows the count line: the mostly-errored regressions, then the cases in only one."""
    return [errored_note(c) for c in comparison.regressed if c.mostly_errored] + only_lines(
        comparison
    )


def plain_comparison(comparison: Comparison) -> str:
    """The table, the count line and the notes, as `passk-tui compare` prints them on stdout."""
    lines = [count_line(comparison), *notes(comparison)]
    return plain_columns(comparison_rows(comparison)) + "\n".join(lines) + "\n"


def regression_lines(comparison: Comparison) -> list[str]:
    """One line per regressed case with both figures and p, for stderr (--fail-on-regression)."""
    return [
        f"regressed: {c.name}: A {passed_cell(c.a)} (pass@1 {two_decimals(c.a.pass_at_1)}), "
        f"B {passed_cell(c.b)} (pass@1 {two_decimals(c.b.pass_at_1)}), "
        f"p {float(c.p):.2g} < {float(comparison.alpha):g}"
        + (
            f"; mostly errored (B {c.b.errored} errored, A {c.a.errored})"
            if c.mostly_errored
            else ""
        )
        for c in comparison.regressed
    ]
