"""passk-tui: how reliably does an agent do each job? Exact pass@k per case, live."""

__version__ = "0.1.0"
