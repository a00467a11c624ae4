"""Did a change help: per-case tests, Holm, the suite's stratified test, their verdicts."""
