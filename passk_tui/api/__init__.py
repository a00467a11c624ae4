"""The Python face: ``passk_tui.evaluate()`` for notebooks and scripts, and the pytest plugin.

Beside ``cli/`` and ``tui/`` over ``evaluations/``: keywords become settings through the one
validator, a callable becomes a target (``targets/callable.py``), and a Result renders the
evaluation's one reading (``evaluations/reading.py``), as the CLI's end of a run does. The
public names are re-exported by ``passk_tui``; this package's ``__init__`` imports nothing,
so the pytest plugin costs a session nothing until a test is marked.
"""
