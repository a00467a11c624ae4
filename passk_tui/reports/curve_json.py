"""Every k at once: a case's pass@k and pass^k for k = 1..n in the ``.json`` export, exact.

A reader takes pass@k or pass^k at any k from one run without recomputing the unbiased
estimators; the app's curve view shows the same numbers.
"""

from __future__ import annotations

from typing import Any

from passk_tui.core.reading.vocabulary import CaseFigures


def curve_json(f: CaseFigures) -> dict[str, list[Any]]:
    """``{"k": [1..n], "pass_at_k": ["21/50", ...], "pass_hat_k": [...]}``; empty before any attempt."""
    every = f.every_k()
    return {
        "k": [k for k, _, _ in every],
        "pass_at_k": [str(at_k) for _, at_k, _ in every],
        "pass_hat_k": [str(hat_k) for _, _, hat_k in every],
    }
