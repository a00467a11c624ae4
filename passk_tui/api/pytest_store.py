"""Where a pytest session's marked tests are kept as they run: one evaluation, written through.

Each marked test becomes a case of the session's evaluation before its first attempt, and
each attempt is stored before pytest shows anything of it, as everywhere else: a session
killed at any moment loses nothing finished. The next session of the same suite (same
agent, version and marked tests' settings) finds the evaluation it left unfinished and
continues it: a test already in it runs only the attempts it is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from passk_tui.core.attempt import AttemptRecord
from passk_tui.core.inputs.settings import Settings
from passk_tui.core.run.attempt_keys import PlannedAttempt, new_evaluation_id
from passk_tui.core.run.cases import Case
from passk_tui.store import Store
from passk_tui.store.claims import Claim
from passk_tui.store.errors import StoreBusy
from passk_tui.store.models import StoredEvaluation


class SessionStore:
    """The session's evaluation in the store: made new, or an unfinished one continued."""

    def __init__(self, settings: Settings, cases_sha256: str, definition: dict[str, str]) -> None:
        self.store = Store.open()
        try:
            found = self._unfinished(settings, definition)
            if found is None:
                self.evaluation_id = new_evaluation_id()
                self.store.create_evaluation(
                    self.evaluation_id, settings, [], cases_sha256, definition=definition
                )
                self.claim: Claim = self.store.claim(self.evaluation_id)
                self.cases: dict[str, int] = {}
                self.records: dict[int, list[AttemptRecord]] = {}
            else:
                stored, self.claim = found
                self.evaluation_id = stored.id
                self.store.reopen(stored.id, settings)
                self.cases = {case.name: index for index, case in enumerate(stored.cases)}
                self.records = {}
                for record in stored.records:
                    self.records.setdefault(record.case_index, []).append(record)
        except BaseException:
            self.store.close()
            raise

    def _unfinished(
        self, settings: Settings, definition: dict[str, str]
    ) -> tuple[StoredEvaluation, Claim] | None:
        """The newest interrupted evaluation of this suite, claimed, or None."""
        for row in self.store.list_evaluations():
            same = (row.agent, row.version, row.definition) == (
                settings.agent,
                settings.version,
                definition,
            )
            if not same or row.status != "interrupted":
                continue
            stored = self.store.load(row.id)
            if replace(stored.settings, cases_path="") != replace(settings, cases_path=""):
                continue
            try:
                return stored, self.store.claim(row.id)
            except StoreBusy:  # another session runs it now: this one starts its own
                continue
        return None

    def case(self, case: Case) -> tuple[int, list[AttemptRecord]]:
        """The test's case index in the evaluation (added when new) and its stored attempts."""
        index = self.cases.get(case.name)
        if index is None:
            index = self.cases[case.name] = self.store.add_case(self.evaluation_id, case)
        return index, self.records.get(index, [])

    def sink(self, index: int) -> CaseSink:
        """The engine's sink for one test, whose own evaluation has it as its only case."""
        return CaseSink(self.store, self.evaluation_id, index)

    def close(self, status: str) -> StoredEvaluation:
        """Record the end, let the evaluation go; what is stored."""
        try:
            self.store.finish(self.evaluation_id, status)
            return self.store.load(self.evaluation_id)
        finally:
            self.claim.release()
            self.store.close()


class CaseSink:
    """A test's attempts (case 0 of its own run) kept as its case of the session's evaluation."""

    def __init__(self, store: Store, evaluation_id: str, index: int) -> None:
        self.store, self.evaluation_id, self.index = store, evaluation_id, index

    def start(self, attempts: Sequence[PlannedAttempt]) -> None:
        self.store.start(self.evaluation_id, [replace(a, case_index=self.index) for a in attempts])

    def write(self, records: Sequence[AttemptRecord]) -> None:
        self.store.write(self.evaluation_id, [replace(r, case_index=self.index) for r in records])
