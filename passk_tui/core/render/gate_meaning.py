"""What the confident gate means, in words: for --help and the Configure form's hints.

Kept apart from ``core.stats.gating.gate`` so that ``passk-tui --help`` prints it without loading
the statistics.
"""

#: The confident gate in one line, for --help and the Configure screen's confidence field.
CONFIDENT_GATE_MEANING = (
    "with --require X the gate reads the pass@k interval: pass when it lies wholly at or above X, "
    "fail when wholly below, else undecided (exit 4: more attempts would settle it)"
)

#: The same in a few words, for a form field's hint.
CONFIDENT_GATE_SHORT = "the gate reads intervals: pass, fail, undecided"
