"""The evaluation store: one SQLite file holding every evaluation, every finished attempt
and every attempt in flight.

``Store`` joins its parts: opening (``connection``), writing (``writing``) and reading
back (``reading``), imports (``importing``); ``EvaluationSink`` binds it to one evaluation for the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.store.importing import StoreImports
from passk_tui.store.reading import StoreReads
from passk_tui.store.writing import StoreWrites


class Store(StoreWrites, StoreReads, StoreImports):
    """The SQLite store; safe to share between the event loop and a worker thread."""

    def sink(self, evaluation_id: str) -> EvaluationSink:
        """The engine's RecordSink for one evaluation: ``write(records)`` commits a batch."""
        return EvaluationSink(self, evaluation_id)


class EvaluationSink:
    """A Store bound to one evaluation: what the engine calls ``sink.start(attempts)`` and
    ``sink.write(records)``."""

    def __init__(self, store: Store, evaluation_id: str) -> None:
        self.store = store
        self.evaluation_id = evaluation_id

    def start(self, attempts: Sequence[PlannedAttempt]) -> None:
        self.store.start(self.evaluation_id, attempts)

    def write(self, records: Sequence[AttemptRecord]) -> None:
        self.store.write(self.evaluation_id, records)
