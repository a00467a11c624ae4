"""Every k at once: the .json's per-case ``curve`` holds pass@k and pass^k for k = 1..n as
exact fractions, checked against scipy's exact binomial coefficients, for a run of ours."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from scipy.special import comb

from passk_tui.reports.export import export
from tests.support.reports import awkward_evaluation


def test_every_case_carries_its_curve_up_to_its_own_n(tmp_path: Path) -> None:
    stored = awkward_evaluation()
    exported = json.loads(export(stored, tmp_path / "out.json").read_text())
    for case in exported["cases"]:
        n, c = case["figures"]["attempts"], case["figures"]["passed"]
        curve = case["curve"]
        assert curve["k"] == list(range(1, n + 1))
        for k, at, hat in zip(curve["k"], curve["pass_at_k"], curve["pass_hat_k"], strict=True):
            theirs_at = 1 - Fraction(int(comb(n - c, k, exact=True)), int(comb(n, k, exact=True)))
            theirs_hat = Fraction(int(comb(c, k, exact=True)), int(comb(n, k, exact=True)))
            assert (Fraction(at), Fraction(hat)) == (theirs_at, theirs_hat)
            assert isinstance(at, str) and isinstance(hat, str)
    arithmetic = next(c for c in exported["cases"] if c["name"] == "arithmetic")
    assert arithmetic["curve"]["pass_at_k"] == ["3/5", "9/10", "1", "1", "1"]
    cut_short = next(c for c in exported["cases"] if c["name"] == "cut short")
    assert cut_short["curve"] == {
        "k": [1, 2],
        "pass_at_k": ["1/2", "1"],
        "pass_hat_k": ["1/2", "0"],
    }
