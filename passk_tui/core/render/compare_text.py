"""A ``Comparison`` as text: the plain table ``compare`` prints, the count line, the suite line,
the notes under them."""

from __future__ import annotations

from fractions import Fraction
from math import isinf

from passk_tui.core.render.table import plain_columns
from passk_tui.core.stats.comparing.compare import CaseComparison, ChangeVerdict, Comparison
from passk_tui.core.stats.comparing.suite import SuiteComparison
from passk_tui.core.stats.rates.figures import CaseFigures
from passk_tui.core.text.amounts import counted
from passk_tui.core.text.decimals import fixed, significant
from passk_tui.core.text.figure_text import UNDEFINED, level_text, outward_texts, two_decimals

HEADERS = ("case", "A passed", "A errored", "B passed", "B errored", "change", "p", "verdict")


def signed(value: Fraction | None) -> str:
    """A change as shown: its sign always (0 alone has none), two decimals; ``-`` if undefined."""
    if value is None or value == 0:
        return two_decimals(value)
    return f"+{fixed(value)}" if value > 0 else fixed(value)


def p_text(p: Fraction | float | None) -> str:
    """A p-value as shown: two decimals as the compare table has them (0.0093 is ``0.01``),
    three below 0.005 where two would read ``0.00``, ``<0.001`` below 0.001; ``-`` if none.

    So no shown p is 0, and a Holm p never looks smaller than the raw p beside it.
    """
    if p is None:
        return UNDEFINED
    if p < Fraction(1, 1000):
        return "<0.001"
    return fixed(p, 3) if p < Fraction(5, 1000) else fixed(p)


def _p_short(p: Fraction | float) -> str:
    """A p-value beside its threshold: two significant digits, no trailing zero (``0.04``)."""
    return significant(p).rstrip("0").rstrip(".")


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
                p_text(c.p),
                str(c.verdict),
            )
        )
    return rows


def count_line(comparison: Comparison) -> str:
    """``1 improved, 1 regressed, 1 unclear``: counts, never a mean."""
    return ", ".join(f"{len(comparison.with_verdict(v))} {v}" for v in ChangeVerdict)


def suite_line(comparison: Comparison, name: str = "suite", b: str = "B") -> str:
    """``suite: B better on 7 cases, worse on 2, same on 11; odds ratio 1.85 (95% CI
    1.21-2.83), p 0.004, improved`` (no interval when a side's n was chosen by looking);
    a matrix names the line and B after its targets (``suite v2 vs v1: v2 better on …``)."""
    suite = comparison.suite
    return (
        f"{name}: {b} better on {counted(suite.better, 'case')}, worse on {suite.worse}, same on "
        f"{suite.same}; {odds_text(suite, comparison)}, p {p_text(suite.p)}, {suite.verdict}"
    )


def odds_text(suite: SuiteComparison, comparison: Comparison) -> str:
    """``odds ratio 1.85 (95% CI 1.21-2.83)``, the interval rounded outward (low down, high up)
    so the shown one holds the computed one; ``-`` where there is no number. An odds ratio of
    exactly 0 or inf (every case's discordance one way) and its one-sided interval's open end
    read ``0`` and ``inf`` (``odds ratio inf (95% CI 1.76-inf)``), never a rounded ``0.00``."""
    ratio = suite.odds_ratio
    shown = UNDEFINED if ratio is None else _ratio_text(ratio)
    if comparison.anytime:
        return f"odds ratio {shown}"
    interval = UNDEFINED
    if suite.low is not None and suite.high is not None:
        interval = "-".join(_bounds_text(suite.low, suite.high))
    return f"odds ratio {shown} ({level_text(float(comparison.confidence))} CI {interval})"


def _ratio_text(ratio: float) -> str:
    """Two decimals; an end of the range as a word (``0``, ``inf``), not a rounded number."""
    return "inf" if isinf(ratio) else "0" if ratio == 0 else fixed(ratio)


def _bounds_text(low: float, high: float) -> tuple[str, str]:
    """Both ends rounded outward; the open end of a one-sided interval as ``0`` or ``inf``."""
    if isinf(high):
        return outward_texts(low, low)[0], "inf"
    if low == 0:
        return "0", outward_texts(high, high)[1]
    return outward_texts(low, high)


#: How the two sides are named: ``compare``'s A and B; a matrix names them by their labels.
SIDES = ("A", "B")


def method_lines(comparison: Comparison, sides: tuple[str, str] = SIDES) -> list[str]:
    """When a side's n was chosen by looking: which tests stood in for Fisher's and the CMH."""
    if not comparison.anytime:
        return []
    looked = " and ".join(
        side for side, s in zip(sides, (comparison.a, comparison.b), strict=True) if s.looked
    )
    return [
        f"{looked}: n chosen by looking (adaptive or extended), so each case is tested by the "
        f"{comparison.method}",
        f"the suite line: {comparison.suite.method}",
    ]


def only_lines(comparison: Comparison, sides: tuple[str, str] = SIDES) -> list[str]:
    """The cases in only one of the two, which are not compared."""
    return [
        f"only in {side}: {', '.join(names)}"
        for side, names in zip(sides, (comparison.only_a, comparison.only_b), strict=True)
        if names
    ]


def errored_note(c: CaseComparison, sides: tuple[str, str] = SIDES) -> str:
    """Why a regression points at the platform: its extra non-passes are mostly errored."""
    a, b = sides
    return (
        f"{c.name}: the drop is mostly errored attempts ({a} {c.a.errored}/{c.a.n} errored, "
        f"{b} {c.b.errored}/{c.b.n}): look at the platform, a provider or a tool before the agent"
    )


def notes(comparison: Comparison, sides: tuple[str, str] = SIDES) -> list[str]:
    """What follows the suite line: the methods when a side's n was chosen by looking, the
    mostly-errored regressions, then the cases in only one; the sides named as ``sides``."""
    errored = [errored_note(c, sides) for c in comparison.regressed if c.mostly_errored]
    return [*method_lines(comparison, sides), *errored, *only_lines(comparison, sides)]


def plain_comparison(comparison: Comparison) -> str:
    """The table, the count line, the suite line and the notes, as `passk-tui compare` prints
    them on stdout."""
    lines = [count_line(comparison), suite_line(comparison), *notes(comparison)]
    return plain_columns(comparison_rows(comparison)) + "\n".join(lines) + "\n"


def regression_lines(comparison: Comparison) -> list[str]:
    """One line per regressed case with both figures and p, then the suite's if it regressed,
    for stderr (--fail-on-regression)."""
    suite = comparison.suite
    suite_regressed = (
        [
            f"regressed: suite: B worse on {suite.worse} of {len(comparison.cases)} cases; "
            f"{odds_text(suite, comparison)}, p {_p_short(suite.p)} < {float(comparison.alpha):g}"
        ]
        if suite.verdict is ChangeVerdict.REGRESSED and suite.p is not None
        else []
    )
    return [
        f"regressed: {c.name}: A {passed_cell(c.a)} (pass@1 {two_decimals(c.a.pass_at_1)}), "
        f"B {passed_cell(c.b)} (pass@1 {two_decimals(c.b.pass_at_1)}), "
        f"p {_p_short(c.p)} < {float(comparison.alpha):g}"
        + (
            f"; mostly errored (B {c.b.errored} errored, A {c.a.errored})"
            if c.mostly_errored
            else ""
        )
        for c in comparison.regressed
    ] + suite_regressed
