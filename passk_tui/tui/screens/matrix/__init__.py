"""The Matrix screen: every case on every target of a matrix (``--version 1,2,3``)."""
