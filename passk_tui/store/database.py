"""The evaluation store: one SQLite file holding every evaluation, every finished attempt
and every attempt in flight.

``Store`` is the one object a face holds. It has a connection (``connection``: opening,
one lock, one transaction per write) and answers each call with a query module:
``reading`` (ids, history, one evaluation whole, the judge's votes), ``writing`` (each
change, in one transaction) and ``importing`` (an imported evaluation, kept whole);
``EvaluationSink`` binds it to one evaluation for the engine. A new question is a
function in a query module and one method here, not a new base class.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from passk_tui.core.attempt import AttemptRecord, Turn, Vote
from passk_tui.core.checks.panel import Judged
from passk_tui.core.inputs.agent_definition import Definition
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.store import importing, reading, writing
from passk_tui.store.claims import Claim
from passk_tui.store.connection import StoreConnection
from passk_tui.store.models import EvaluationSummary, StoredEvaluation
from passk_tui.store.reading import AttemptPlace


class Store:
    """The SQLite store; safe to share between the event loop and a worker thread.

    Each method is the query module's function of the same name, on this store's connection.
    """

    def __init__(self, connection: StoreConnection) -> None:
        self.connection = connection

    @classmethod
    def open(cls, path: Path | str | None = None) -> Store:
        """Open (creating if needed) the store at ``path`` or ``data_dir()/passk.db``."""
        return cls(StoreConnection.open(path))

    @property
    def path(self) -> Path:
        """The database file."""
        return self.connection.path

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sink(self, evaluation_id: str) -> EvaluationSink:
        """The engine's RecordSink for one evaluation: ``write(records)`` commits a batch."""
        return EvaluationSink(self, evaluation_id)

    # -- reading ------------------------------------------------------------------------

    def resolve(self, ref: str) -> str:
        return reading.resolve(self.connection, ref)

    def last_definition(
        self, agent: str, version: int, *, on_stack: bool
    ) -> tuple[str, Definition] | None:
        return reading.last_definition(self.connection, agent, version, on_stack=on_stack)

    def list_evaluations(self) -> list[EvaluationSummary]:
        return reading.list_evaluations(self.connection)

    def load(self, evaluation_id: str) -> StoredEvaluation:
        return reading.load(self.connection, evaluation_id)

    def votes_of(self, evaluation_id: str) -> dict[AttemptPlace, tuple[Vote, ...]]:
        return reading.votes_of(self.connection, evaluation_id)

    def user_messages_of(self, evaluation_id: str) -> dict[str, tuple[str, Turn]]:
        return reading.user_messages_of(self.connection, evaluation_id)

    # -- writing ------------------------------------------------------------------------

    def create_evaluation(
        self,
        evaluation_id: str,
        settings: Settings,
        cases: Sequence[Case],
        cases_sha256: str,
        created: float | None = None,
        definition: Definition | None = None,
    ) -> None:
        writing.create_evaluation(
            self.connection, evaluation_id, settings, cases, cases_sha256, created, definition
        )

    def write(self, evaluation_id: str, records: Sequence[AttemptRecord]) -> None:
        writing.write(self.connection, evaluation_id, records)

    def start(self, evaluation_id: str, attempts: Sequence[PlannedAttempt]) -> None:
        writing.start(self.connection, evaluation_id, attempts)

    def finish(
        self, evaluation_id: str, status: str, error: str | None = None, reason: str | None = None
    ) -> None:
        writing.finish(self.connection, evaluation_id, status, error, reason)

    def forget_cases(self, evaluation_id: str) -> None:
        writing.forget_cases(self.connection, evaluation_id)

    def keep_cases(self, evaluation_id: str, cases: Sequence[Case]) -> None:
        writing.keep_cases(self.connection, evaluation_id, cases)

    def add_case(self, evaluation_id: str, case: Case) -> int:
        return writing.add_case(self.connection, evaluation_id, case)

    def reopen(self, evaluation_id: str, settings: Settings) -> None:
        writing.reopen(self.connection, evaluation_id, settings)

    def keep_definition(self, evaluation_id: str, definition: Definition) -> None:
        writing.keep_definition(self.connection, evaluation_id, definition)

    def keep_stop_reasons(self, evaluation_id: str, reasons: Mapping[int, str | None]) -> None:
        writing.keep_stop_reasons(self.connection, evaluation_id, reasons)

    def claim(self, evaluation_id: str) -> Claim:
        return writing.claim(self.connection, evaluation_id)

    def keep_vote(self, evaluation_id: str, attempt: Judged, vote: Vote) -> None:
        writing.keep_vote(self.connection, evaluation_id, attempt, vote)

    def forget_votes(self, evaluation_id: str, attempt: Judged) -> None:
        writing.forget_votes(self.connection, evaluation_id, attempt)

    def keep_user_message(self, evaluation_id: str, key: str, digest: str, turn: Turn) -> None:
        writing.keep_user_message(self.connection, evaluation_id, key, digest, turn)

    # -- importing ----------------------------------------------------------------------

    def keep_imported(
        self,
        evaluation_id: str,
        settings: Settings,
        cases: Sequence[Case],
        cases_sha256: str,
        definition: Definition,
        records: Sequence[AttemptRecord],
        created: float,
        transcripts: Iterable[tuple[int, int, str]] = (),
    ) -> None:
        importing.keep_imported(
            self.connection,
            evaluation_id,
            settings,
            cases,
            cases_sha256,
            definition,
            records,
            created,
            transcripts,
        )

    def find_imported(self, fingerprint: str) -> str | None:
        return importing.find_imported(self.connection, fingerprint)

    def keep_view(self, evaluation_id: str, settings: Settings) -> None:
        importing.keep_view(self.connection, evaluation_id, settings)


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
