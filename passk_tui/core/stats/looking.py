"""Was an evaluation's n chosen by looking? The one place that decides it for the comparison.

A fixed-n test (Fisher's) is valid only when each case's n was set before any
attempt was seen. An adaptive evaluation (``--max-attempts``) stops each case
when it looks decided, so its n was chosen by looking. An extended one
(``--resume ID --attempts N`` after its figures were shown) is too, but the
store does not yet record that an evaluation was extended; until it stores the
evaluation's interval method, this reads the adaptive setting alone.
"""

from __future__ import annotations

from passk_tui.core.run.settings import Settings


def n_chosen_by_looking(settings: Settings) -> bool:
    """True when the evaluation's attempts per case were chosen while looking at outcomes."""
    return settings.adaptive
