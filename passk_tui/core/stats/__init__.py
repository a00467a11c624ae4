"""The statistics: exact figures, intervals, confidence sequences, stop rules, the gate, comparisons."""
