"""Every k at once: a case's pass@k and pass^k for k = 1..n in the ``.json`` export, exact.

A reader takes pass@k or pass^k at any k from one run without recomputing the unbiased
estimators; the app's curve view (``core.stats.rates.curves``) shows the same numbers.
"""

from __future__ import annotations

from typing import Any

from passk_tui.core.reading.vocabulary import CaseFigures
from passk_tui.core.stats.rates.figures import pass_at_k, pass_hat_k


def curve_json(f: CaseFigures) -> dict[str, list[Any]]:
    """``{"k": [1..n], "pass_at_k": ["21/50", ...], "pass_hat_k": [...]}``; empty before any attempt."""
    ks = list(range(1, f.n + 1))
    return {
        "k": ks,
        "pass_at_k": [str(pass_at_k(f.n, f.passed, k)) for k in ks],
        "pass_hat_k": [str(pass_hat_k(f.n, f.passed, k)) for k in ks],
    }
