"""A case's pass rate: exact figures, intervals, confidence sequences, which interval is read, curves."""
