"""Trends: one agent over its stored evaluations, the flaky cases and each case's pass@1 over time."""
