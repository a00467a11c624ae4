"""Other tools' runs read as attempts: inspect_ai, promptfoo, tau-bench, lm-eval, plain JSONL.

A layer beside ``targets``: it reads files with the standard library and imports only
``core``; ``evaluations.imported`` stores what it read as a normal evaluation.
"""
