"""The gate and when to stop: verdicts, their thresholds, the family-wise promise, stop rules."""
