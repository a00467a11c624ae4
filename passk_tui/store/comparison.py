"""Two stored evaluations compared: what `passk-tui compare`, its exports and a Compare screen read."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.inputs.agent_definition import changed_warning, labelled, same_measure
from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.render.cost_text import comparison_cost_lines
from passk_tui.core.stats.comparing.compare import Comparison, Side, compare
from passk_tui.core.stats.costs.case_costs import CaseCosts, case_costs, evaluation_cost
from passk_tui.core.stats.rates.interval_choice import n_chosen_by_looking
from passk_tui.store.database import Store
from passk_tui.store.models import StoredEvaluation


@dataclass(frozen=True, slots=True)
class ComparedEvaluations:
    """The baseline (A), the candidate (B) as stored, and their per-case comparison."""

    baseline: StoredEvaluation
    candidate: StoredEvaluation
    comparison: Comparison

    def warnings(self) -> list[str]:
        """What the user should know before trusting the verdicts (none stops the comparison)."""
        found: list[str] = []
        a, b = self.baseline, self.candidate
        if a.id == b.id:
            found.append(f"A and B are the same evaluation ({a.id}): every case is unchanged")
        for side, stored in (("A", a), ("B", b)):
            if stored.status != "done" and stored.missing > 0:
                found.append(
                    f"{side} ({stored.id}) is {stored.status}: {stored.missing} attempts missing; "
                    "comparing the attempts stored"
                )
        cases_b = {case.name: case for case in b.cases}
        differing = [
            case.name
            for case in a.cases
            if case.name in cases_b
            and (case.input, case.spec) != (cases_b[case.name].input, cases_b[case.name].spec)
        ]
        if differing:
            found.append(
                "the input or check differs between A and B for "
                + ", ".join(differing)
                + ": their change mixes the agent's with the case's"
            )
        found += self._definition_warnings()
        return found

    def _definition_warnings(self) -> list[str]:
        """The same label on both sides that ran two different things."""
        a, b = self.baseline, self.candidate
        same_label = (a.settings.agent, a.settings.version) == (
            b.settings.agent,
            b.settings.version,
        )
        if not same_label or a.definition is None or b.definition is None:
            return []
        if same_measure(a.definition, b.definition):
            return []
        s = b.settings
        return [f"B: {changed_warning(s.agent, s.version, a.id, a.definition, b.definition)}"]

    def definition_lines(self) -> list[str]:
        """What each side ran, one line each (``A: calc v1: python3 agents/calc.py``); none
        when neither recorded it (both stored before definitions were)."""
        sides = (("A", self.baseline), ("B", self.candidate))
        if all(stored.definition is None for _, stored in sides):
            return []
        return [
            f"{name}: {labelled(s.settings.agent, s.settings.version, s.definition)}"
            for name, s in sides
        ]

    def costs(self) -> tuple[list[CaseCosts], list[CaseCosts]]:
        """Each side's costs over the compared cases, in the comparison's order (A, B)."""
        names = [c.name for c in self.comparison.cases]
        compared = set(names)

        def of(stored: StoredEvaluation) -> list[CaseCosts]:
            records = [r for r in stored.records if r.case in compared]
            return case_costs(names, records, stored.settings.price)

        return of(self.baseline), of(self.candidate)

    def cost_totals(self) -> tuple[Fraction | None, Fraction | None]:
        """Each side's cost over the compared cases (None: no case has one), A then B."""
        a, b = self.costs()
        return evaluation_cost(a), evaluation_cost(b)

    def cost_lines(self) -> list[str]:
        """After the table: cost per passed attempt for A and B side by side, when either
        side has prices; none otherwise."""
        if self.baseline.settings.price is None and self.candidate.settings.price is None:
            return []
        return comparison_cost_lines(*self.costs())


def side(stored: StoredEvaluation, label: str) -> Side:
    """An evaluation as the comparison sees it: its k, its cases' counts, whether its n was
    chosen by looking."""
    return Side(
        f"{label} ({stored.id})",
        stored.settings.k,
        stored.figures(),
        looked=n_chosen_by_looking(stored.settings),
    )


def compare_stored(
    baseline: StoredEvaluation,
    candidate: StoredEvaluation,
    confidence: Fraction = DEFAULT_CONFIDENCE,
) -> ComparedEvaluations:
    """Compare two stored evaluations per case (NothingToCompare when they cannot be)."""
    comparison = compare(side(baseline, "A"), side(candidate, "B"), confidence)
    return ComparedEvaluations(baseline, candidate, comparison)


def load_compared(
    store: Store, baseline_ref: str, candidate_ref: str, confidence: Fraction = DEFAULT_CONFIDENCE
) -> ComparedEvaluations:
    """Resolve both references (ids, unique prefixes, ``last``, ``last~N``), load, compare."""
    baseline = store.load(store.resolve(baseline_ref))
    candidate = store.load(store.resolve(candidate_ref))
    return compare_stored(baseline, candidate, confidence)
