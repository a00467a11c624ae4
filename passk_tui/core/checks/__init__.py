"""The check kinds that judge an answer: compiled once at load, then fast per attempt."""
