"""Is the judge right? Its verdicts against a person's labels: accuracy with its exact interval,
Cohen's kappa, the confusion counts.

An answer the judge could not decide (no majority of valid votes) is counted apart, and
as not right in the accuracy: a judge that cannot say is not a judge that is right. It is
left out of Cohen's kappa, which needs a verdict from both raters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from passk_tui.core.stats.agreement.kappa import cohens_kappa
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON, Interval
from passk_tui.core.text.decimals import fixed
from passk_tui.core.text.figure_text import interval_text, level_text


@dataclass(frozen=True, slots=True)
class LabelAgreement:
    """The judge's verdicts (True pass, False fail, None undecided) beside the labels."""

    pass_pass: int = 0
    """Labelled pass, judged pass."""
    pass_fail: int = 0
    fail_pass: int = 0
    fail_fail: int = 0
    pass_none: int = 0
    """Labelled pass, no verdict."""
    fail_none: int = 0

    @classmethod
    def of(cls, pairs: Iterable[tuple[bool, bool | None]]) -> LabelAgreement:
        """From (label, verdict) pairs: label True for ``pass``."""
        counts = {name: 0 for name in cls.__dataclass_fields__}
        for label, verdict in pairs:
            judged = "none" if verdict is None else ("pass" if verdict else "fail")
            counts[f"{'pass' if label else 'fail'}_{judged}"] += 1
        return cls(**counts)

    @property
    def labelled(self) -> int:
        return sum(getattr(self, name) for name in self.__dataclass_fields__)

    @property
    def right(self) -> int:
        return self.pass_pass + self.fail_fail

    @property
    def accuracy(self) -> float | None:
        return self.right / self.labelled if self.labelled else None

    def interval(self, confidence: float) -> Interval:
        """The accuracy's exact (Clopper-Pearson) interval at ``confidence``."""
        return CLOPPER_PEARSON.rate(self.right, self.labelled, confidence)

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa over the answers the judge decided (None: undefined, or none)."""
        return cohens_kappa([[self.pass_pass, self.pass_fail], [self.fail_pass, self.fail_fail]])

    def lines(self, confidence: float) -> list[str]:
        """What `judge-check` prints: accuracy and interval, kappa, the confusion counts."""
        if not self.labelled:
            return ["no labelled answers"]
        kappa = "-" if self.kappa is None else fixed(self.kappa)
        rows = [
            ("", "judged pass", "judged fail", "no verdict"),
            ("label pass", *map(str, (self.pass_pass, self.pass_fail, self.pass_none))),
            ("label fail", *map(str, (self.fail_pass, self.fail_fail, self.fail_none))),
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        table = [
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
        ]
        return [
            f"accuracy {self.right}/{self.labelled} = {fixed(self.right / self.labelled)}, "
            f"{level_text(confidence)} exact interval {interval_text(self.interval(confidence))}",
            f"Cohen's kappa {kappa}",
            *table,
        ]
