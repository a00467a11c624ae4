"""One reading of a matrix, live or stored, that every face renders.

Each target's figures, intervals and gate are its own ``EvaluationReading``; the
first target against each other is ``core.stats.comparing.matrix`` (Holm over
every pair). The headless table, the group's exports, the app's Matrix screen and
``evaluate()``'s result read this, and none of them computes a figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from passk_tui.core.inputs.compare_level import DEFAULT_CONFIDENCE
from passk_tui.core.inputs.target_list import MatrixTarget, target_labels
from passk_tui.core.render.matrix.text import matrix_regression_lines, plain_matrix
from passk_tui.core.stats.comparing.matrix import MatrixComparison, compare_matrix
from passk_tui.evaluations.reading import EvaluationReading, reading_of
from passk_tui.store import Store
from passk_tui.store.comparison import side
from passk_tui.store.groups import Group
from passk_tui.store.models import StoredEvaluation


@dataclass(frozen=True, eq=False)
class MatrixReading:
    """Every target as stored, its reading, and the first compared with each other."""

    group_id: str
    targets: tuple[MatrixTarget, ...]
    stored: tuple[StoredEvaluation, ...]
    confidence: Fraction = DEFAULT_CONFIDENCE

    @classmethod
    def load(
        cls, store: Store, group: Group, confidence: Fraction = DEFAULT_CONFIDENCE
    ) -> MatrixReading:
        """The group's evaluations as stored now (NothingToCompare as ``compare`` raises it)."""
        stored = tuple(store.load(id_) for id_ in group.evaluation_ids)
        return cls(group.id, group.targets, stored, confidence)

    @property
    def labels(self) -> list[str]:
        return target_labels(self.targets)

    @cached_property
    def readings(self) -> list[EvaluationReading]:
        """Each target's own reading: figures, intervals, gate."""
        return [reading_of(s) for s in self.stored]

    @cached_property
    def comparison(self) -> MatrixComparison:
        """The first target against each other, Holm over every pair."""
        sides = [side(s, label) for s, label in zip(self.stored, self.labels, strict=True)]
        return compare_matrix(sides, self.confidence)

    @property
    def k(self) -> int:
        return self.stored[0].settings.k

    def table(self) -> str:
        """The matrix as the headless face prints it on stdout."""
        figures = [r.figures for r in self.readings]
        return plain_matrix(self.labels, figures, self.k, self.comparison)

    def gate_lines(self, shown_require: str | None = None) -> list[str]:
        """Each target's gate lines, named by the target."""
        return [
            f"{label} {line}"
            for label, reading in zip(self.labels, self.readings, strict=True)
            for line in reading.gate_lines(shown_require)
        ]

    def regression_lines(self) -> list[str]:
        """Each regressed case (and suite) of every pair, named by the pair."""
        return matrix_regression_lines(self.labels, self.comparison)

    def exit_code(self, fail_on_regression: bool = False) -> int:
        """1 when any target fails its gate (or, asked, any case or suite regressed against the
        first), else 4 when any target's confident gate is undecided, else 0."""
        codes = [r.exit_code for r in self.readings]
        if fail_on_regression and self.comparison.fails_on_regression:
            codes.append(1)
        return 1 if 1 in codes else max(codes, default=0)


def stored_matrix(ref: str, confidence: Fraction = DEFAULT_CONFIDENCE) -> MatrixReading | None:
    """The matrix the stored evaluation ``ref`` ran in, as stored now; None when it ran alone.
    The store's errors as its InputError (exit 2) or RunError (3)."""
    from passk_tui.store.groups import group_of

    with Store.open() as store:
        group = group_of(store, store.resolve(ref))
        return None if group is None else MatrixReading.load(store, group, confidence)
