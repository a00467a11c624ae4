"""The evaluation store: one SQLite file holding every evaluation, every finished attempt
and every attempt in flight.

Durability: WAL with ``synchronous=NORMAL``. A commit returns once its pages are
written to the WAL file (handed to the operating system); the WAL is fsynced at
checkpoints. A killed process (SIGKILL, a closed terminal, a crash) therefore
loses no committed attempt, because the kernel still writes out what it was
given; only a power cut or kernel crash can drop the last few commits, and even
then the database stays consistent. That is the failure the issue asks us to
survive, at a fraction of the cost of an fsync per batch.

The stack key is never passed in: no column can hold it.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import platformdirs

from passk_tui.core.run.agent_definition import Definition
from passk_tui.core.run.attempt import AttemptRecord, Outcome
from passk_tui.core.run.attempt_keys import PlannedAttempt
from passk_tui.core.run.cases import Case
from passk_tui.core.run.policy import Slot
from passk_tui.core.run.settings import Settings
from passk_tui.core.stats.extent import extent, known_attempts
from passk_tui.core.stats.figures import CaseFigures
from passk_tui.core.stats.interval_choice import evaluation_choice
from passk_tui.core.stats.stopping import StopReason
from passk_tui.core.text.quoting import shorten
from passk_tui.core.text.terminal_text import first_unsafe
from passk_tui.store import rows as layout
from passk_tui.store.claims import Claim, is_claimed
from passk_tui.store.claims import claim as take_claim
from passk_tui.store.errors import (
    StoreBusy,
    StoreUnusable,
    UnknownEvaluation,
    opening_error,
    writing_error,
)
from passk_tui.store.history import gate_counts
from passk_tui.store.models import EvaluationSummary, StoredEvaluation
from passk_tui.store.schema import NewerSchema, migrate

DB_NAME = "passk.db"
_BUSY_TIMEOUT_MS = 5000
#: SQLite's primary result codes for a file another connection holds.
_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def data_dir() -> Path:
    """Where the store lives: $PASSK_DATA_DIR, else the platform's user data folder."""
    configured = os.environ.get("PASSK_DATA_DIR")
    return Path(configured) if configured else Path(platformdirs.user_data_dir("passk-tui"))


class Store:
    """The SQLite store; safe to share between the event loop and a worker thread."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.Lock()

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str | None = None) -> Store:
        """Open (creating if needed) the store at ``path`` or ``data_dir()/passk.db``."""
        path = Path(path) if path is not None else data_dir() / DB_NAME
        folder = path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnusable(
                f"{folder}: cannot create the data folder: {exc.strerror or exc} "
                "(set PASSK_DATA_DIR to a writable folder)"
            ) from None
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise StoreUnusable(
                f"{path}: the store cannot be written (set PASSK_DATA_DIR to a writable folder)"
            )
        try:
            connection = sqlite3.connect(
                path,
                isolation_level=None,  # transactions are explicit: one per batch
                check_same_thread=False,
                timeout=_BUSY_TIMEOUT_MS / 1000,
            )
        except sqlite3.Error as exc:
            raise opening_error(path, exc) from None
        try:
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            _when_free(lambda: _set_up(path, connection))
        except NewerSchema as exc:
            connection.close()
            raise StoreUnusable(
                f"{path}: made by a newer passk-tui (schema {exc.args[0]}); upgrade passk-tui"
            ) from None
        except sqlite3.Error as exc:
            connection.close()
            raise opening_error(path, exc) from None
        except BaseException:
            connection.close()
            raise
        return cls(path, connection)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self, what: str) -> Iterator[sqlite3.Connection]:
        """One transaction; any failure rolls it back and becomes a one-line StoreWriteError."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            # A value that cannot be laid out or bound (too deep, an integer past 64 bits)
            # is a failed write like any other: the sink must say so, never drop a batch.
            except (sqlite3.Error, ValueError, OverflowError, RecursionError) as exc:
                raise writing_error(self.path, what, exc) from None

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
        """Record a new evaluation, its settings, what its agent resolved to (``definition``)
        and its cases as loaded, status ``running``."""
        values = {
            **layout.settings_row(settings),
            "id": evaluation_id,
            "created": time.time() if created is None else created,
            "cases_sha256": cases_sha256,
            "case_count": len(cases),
            "agent_definition": None if definition is None else layout.to_json(definition),
        }
        with self._writing("the new evaluation") as db:
            db.execute(
                "INSERT INTO evaluations (id, created, status, stack, agents_path, agent, version,"
                " attempts, k, require, completion_only, concurrency, timeout, cases_path,"
                " cases_sha256, case_count, max_attempts, precision, confidence, agent_definition,"
                " price_in, price_out, budget_runs, budget_cost, family_wise, extended)"
                " VALUES (:id, :created, 'running', :stack, :agents_path, :agent, :version,"
                " :attempts, :k, :require, :completion_only, :concurrency, :timeout, :cases_path,"
                " :cases_sha256, :case_count, :max_attempts, :precision, :confidence,"
                " :agent_definition, :price_in, :price_out, :budget_runs, :budget_cost, :family_wise,"
                " :extended)",
                values,
            )
            _insert_cases(db, evaluation_id, cases)

    def write(self, evaluation_id: str, records: Sequence[AttemptRecord]) -> None:
        """Keep a batch of finished (or withdrawn) attempts, no longer in flight, in one
        transaction, or raise StoreWriteError."""
        if not records:
            return
        with self._writing("finished attempts") as db:
            rows = [layout.record_row(evaluation_id, r) for r in records]
            db.executemany(
                "INSERT INTO attempts (evaluation_id, case_index, attempt, retake, case_name, key,"
                " outcome, status, output, reason, error, run_id, turn_id, started, ended,"
                " duration, usage, retries, finish_reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            db.executemany(
                "DELETE FROM in_flight WHERE evaluation_id = ? AND case_index = ? AND attempt = ?"
                " AND retake = ?",
                [(evaluation_id, r.case_index, r.attempt, r.retake) for r in records],
            )

    def start(self, evaluation_id: str, attempts: Sequence[PlannedAttempt]) -> None:
        """Keep attempts as in flight, in one transaction, before any of their Runs is requested.

        Each stays until ``write`` stores its record (or its withdrawal), so a kill at any
        moment leaves every Run the stack may have started either recorded or in flight,
        for a resume to replay under the same key. An attempt already in flight (a resume
        replaying it) is kept once.
        """
        if not attempts:
            return
        with self._writing("the attempts being started") as db:
            db.executemany(
                "INSERT OR IGNORE INTO in_flight (evaluation_id, case_index, attempt, retake)"
                " VALUES (?, ?, ?, ?)",
                [(evaluation_id, a.case_index, a.attempt, a.retake) for a in attempts],
            )

    def sink(self, evaluation_id: str) -> EvaluationSink:
        """The engine's RecordSink for one evaluation: ``write(records)`` commits a batch."""
        return EvaluationSink(self, evaluation_id)

    def finish(
        self, evaluation_id: str, status: str, error: str | None = None, reason: str | None = None
    ) -> None:
        """Record how the evaluation ended: done, cancelled or failed (with its one-line error),
        and why when there is more to say (``budget spent``)."""
        with self._writing("the evaluation's end") as db:
            db.execute(
                "UPDATE evaluations SET status = ?, error = ?, status_reason = ?, finished = ?"
                " WHERE id = ?",
                (status, layout.text(error), reason, time.time(), evaluation_id),
            )

    def forget_cases(self, evaluation_id: str) -> None:
        """Drop the stored cases of an evaluation that failed before any attempt ran.

        Its row (settings, status, error, the cases file's hash) stays for history
        and resume, which reads the unchanged file again (``keep_cases``); a copy of
        the cases (58 MB for 100,000) would only pile up with every refused start.
        """
        with self._writing("the failed start") as db:
            db.execute("DELETE FROM cases WHERE evaluation_id = ?", (evaluation_id,))

    def keep_cases(self, evaluation_id: str, cases: Sequence[Case]) -> None:
        """Store the cases again of an evaluation whose cases were forgotten, as it resumes."""
        with self._writing("the resumed evaluation's cases") as db:
            _insert_cases(db, evaluation_id, cases)

    def reopen(self, evaluation_id: str, settings: Settings) -> None:
        """A resume starts: status back to running, with the running settings given anew
        (and the attempts or the cap an extension raised)."""
        with self._writing("the resumed evaluation") as db:
            db.execute(
                "UPDATE evaluations SET status = 'running', error = NULL, stack = :stack,"
                " agents_path = :agents_path, require = :require, concurrency = :concurrency,"
                " timeout = :timeout, attempts = :attempts, max_attempts = :max_attempts,"
                " precision = :precision, confidence = :confidence, price_in = :price_in,"
                " price_out = :price_out, budget_runs = :budget_runs, budget_cost = :budget_cost,"
                " family_wise = :family_wise, extended = :extended,"
                " status_reason = NULL WHERE id = :id",
                {**layout.settings_row(settings), "id": evaluation_id},
            )

    def keep_definition(self, evaluation_id: str, definition: Definition) -> None:
        """Record what the agent resolves to now, for an evaluation that ran nothing before."""
        with self._writing("the agent definition") as db:
            db.execute(
                "UPDATE evaluations SET agent_definition = ? WHERE id = ?",
                (layout.to_json(definition), evaluation_id),
            )

    def keep_stop_reasons(self, evaluation_id: str, reasons: Mapping[int, str | None]) -> None:
        """Record why cases stopped getting attempts (None: sampled again, by an extension)."""
        if not reasons:
            return
        with self._writing("the cases' stop reasons") as db:
            db.executemany(
                "UPDATE cases SET stop_reason = ? WHERE evaluation_id = ? AND case_index = ?",
                [(text, evaluation_id, index) for index, text in reasons.items()],
            )

    def claim(self, evaluation_id: str) -> Claim:
        """Hold the evaluation for this process; StoreBusy when another process runs it."""
        try:
            held = take_claim(self.path.parent, evaluation_id)
        except OSError as exc:
            raise StoreUnusable(
                f"{self.path.parent}: cannot write a lock file: {exc.strerror or exc}"
            ) from None
        if held is None:
            raise StoreBusy(f"evaluation {evaluation_id} is running in another passk-tui process")
        return held

    # -- reading ------------------------------------------------------------------------

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                cursor = self._db.execute(sql, params)
                cursor.row_factory = sqlite3.Row
                return cursor.fetchall()
            except sqlite3.Error as exc:
                raise opening_error(self.path, exc) from None

    def resolve(self, ref: str) -> str:
        """The id ``ref`` names: ``last`` (the newest), ``last~N`` (the one N before it), a full
        id, or an unambiguous prefix."""
        ref = ref.strip()
        shown = shorten(ref)
        if first_unsafe(ref) is not None:
            # No id holds a control character, and SQLite cannot take a lone surrogate.
            raise UnknownEvaluation(f"no evaluation {shown!r} in the store ({self.path})")
        back = newest_but(ref)
        if back is not None:
            rows = self._query(
                "SELECT id FROM evaluations ORDER BY created DESC, id DESC LIMIT 1 OFFSET ?",
                (back,),
            )
            if not rows:
                held = self._query("SELECT COUNT(*) AS n FROM evaluations")[0]["n"]
                raise UnknownEvaluation(
                    f"{shown}: the store holds only {held} evaluation{'s' * (held > 1)} ({self.path})"
                    if held
                    else f"{shown}: no evaluation in the store ({self.path})"
                )
            newest: str = rows[0]["id"]
            return newest
        escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._query(
            "SELECT id FROM evaluations WHERE id LIKE ? ESCAPE '\\' ORDER BY created LIMIT 3",
            (escaped + "%",),
        )
        exact: list[str] = [r["id"] for r in rows if r["id"] == ref]
        if exact:
            return exact[0]
        if not rows:
            raise UnknownEvaluation(f"no evaluation {shown!r} in the store ({self.path})")
        if len(rows) > 1:
            raise UnknownEvaluation(
                f"{shown!r} names more than one evaluation; give more of the id"
            )
        found: str = rows[0]["id"]
        return found

    def last_definition(
        self, agent: str, version: int, *, on_stack: bool
    ) -> tuple[str, Definition] | None:
        """The newest evaluation of this agent and version (on a stack, or local) that recorded
        its definition and measured something with it (one that failed before any attempt,
        a typo in the file, means nothing to keep to): (its id, the definition), or None."""
        rows = self._query(
            "SELECT id, agent_definition FROM evaluations e WHERE agent = ? AND version = ?"
            " AND (stack IS NOT NULL) = ? AND agent_definition IS NOT NULL"
            " AND EXISTS (SELECT 1 FROM attempts a WHERE a.evaluation_id = e.id)"
            " ORDER BY created DESC, id DESC LIMIT 1",
            (agent, version, on_stack),
        )
        definition = layout.definition_from_column(rows[0]["agent_definition"]) if rows else None
        return None if definition is None else (rows[0]["id"], definition)

    def list_evaluations(self) -> list[EvaluationSummary]:
        """Every evaluation, newest first, with its counts and how many cases miss the gate."""
        evaluations = self._query("SELECT * FROM evaluations ORDER BY created DESC, id DESC")
        # One pass over the attempts gives both the recorded count and each case's figures.
        counts: dict[str, dict[int, tuple[int, int]]] = {}
        for row in self._query(
            "SELECT evaluation_id, case_index, COUNT(*) AS n, SUM(outcome = 'passed') AS passed"
            " FROM attempts WHERE outcome != 'withdrawn' GROUP BY evaluation_id, case_index"
        ):
            counts.setdefault(row["evaluation_id"], {})[row["case_index"]] = (
                row["n"],
                row["passed"],
            )
        return [self._summary(row, counts.get(row["id"], {})) for row in evaluations]

    def _summary(self, row: sqlite3.Row, counts: dict[int, tuple[int, int]]) -> EvaluationSummary:
        settings = layout.settings_from_row(row)
        under: int | None = None
        decided: int | None = None
        if row["require"] is not None:
            figures = []
            for i in range(row["case_count"]):
                n, passed = counts.get(i, (0, 0))
                figures.append(
                    CaseFigures(str(i), n, passed, 0, n - passed, row["k"], row["attempts"])
                )
            if evaluation_choice(settings, figures).by_looking:
                # The anytime-valid interval reads each case's outcomes in order.
                orders = self._orders(row["id"])
                figures = [replace(f, order=orders.get(i, b"")) for i, f in enumerate(figures)]
            under, decided = gate_counts(figures, settings)
        finished = [counts.get(i, (0, 0))[0] for i in range(row["case_count"])]
        reasons = self._stop_reasons(row["id"]) if settings.adaptive else {}
        return EvaluationSummary(
            id=row["id"],
            created=row["created"],
            finished=row["finished"],
            agent=row["agent"],
            version=row["version"],
            stack=row["stack"],
            cases=row["case_count"],
            attempts=row["attempts"],
            recorded=sum(finished),
            status=self._status(row["id"], row["status"]),
            under_gate=under,
            decided=decided,
            max_attempts=row["max_attempts"],
            extent=extent(
                settings,
                row["case_count"],
                sum(finished),
                known_attempts(settings.attempts, finished),
                reasons,
            ),
        )

    def _stop_reasons(self, evaluation_id: str) -> dict[int, StopReason]:
        """An adaptive evaluation's stored stop reasons, by case index."""
        rows = self._query(
            "SELECT case_index, name, stop_reason FROM cases WHERE evaluation_id = ?",
            (evaluation_id,),
        )
        return layout.stop_reasons(rows, f"{self.path}: evaluation {evaluation_id}")

    def _orders(self, evaluation_id: str) -> dict[int, bytes]:
        """Per case, its counted outcomes by attempt number (1 a pass, 0 not), as the
        anytime-valid interval of an adaptive evaluation reads them."""
        orders: dict[int, bytearray] = {}
        for row in self._query(
            "SELECT case_index, outcome = 'passed' AS passed FROM attempts"
            " WHERE evaluation_id = ? AND outcome != 'withdrawn' ORDER BY case_index, attempt",
            (evaluation_id,),
        ):
            orders.setdefault(row["case_index"], bytearray()).append(row["passed"])
        return {i: bytes(order) for i, order in orders.items()}

    def _status(self, evaluation_id: str, stored: str) -> str:
        if stored != "running":
            return stored
        return "running" if is_claimed(self.path.parent, evaluation_id) else "interrupted"

    def load(self, evaluation_id: str) -> StoredEvaluation:
        """The evaluation with its settings, cases (checks recompiled) and records in order."""
        rows = self._query("SELECT * FROM evaluations WHERE id = ?", (evaluation_id,))
        if not rows:
            raise UnknownEvaluation(f"no evaluation {evaluation_id!r} in the store ({self.path})")
        row = rows[0]
        base_dir = Path(row["cases_path"]).parent
        case_rows = self._query(
            "SELECT * FROM cases WHERE evaluation_id = ? ORDER BY case_index", (evaluation_id,)
        )
        cases = [
            layout.case_from_row(
                c, f"{self.path}: evaluation {evaluation_id}: case {c['name']!r}", base_dir
            )
            for c in case_rows
        ]
        records: list[AttemptRecord] = []
        withdrawn: list[AttemptRecord] = []
        for r in self._query(
            "SELECT * FROM attempts WHERE evaluation_id = ? ORDER BY case_index, attempt, retake",
            (evaluation_id,),
        ):
            record = layout.record_from_row(r)
            (withdrawn if record.outcome is Outcome.WITHDRAWN else records).append(record)
        in_flight = [
            Slot(r["case_index"], r["attempt"], r["retake"])
            for r in self._query(
                "SELECT case_index, attempt, retake FROM in_flight WHERE evaluation_id = ?"
                " ORDER BY case_index, attempt",
                (evaluation_id,),
            )
        ]
        return StoredEvaluation(
            id=row["id"],
            created=row["created"],
            finished=row["finished"],
            status=self._status(row["id"], row["status"]),
            error=row["error"],
            settings=layout.settings_from_row(row),
            cases=cases,
            cases_sha256=row["cases_sha256"],
            records=records,
            withdrawn=withdrawn,
            in_flight=in_flight,
            stop_reasons=layout.stop_reasons(case_rows, f"{self.path}: evaluation {evaluation_id}"),
            definition=layout.definition_from_column(row["agent_definition"]),
            status_reason=row["status_reason"],
        )


def _set_up(path: Path, connection: sqlite3.Connection) -> None:
    """Write-ahead log, durability, foreign keys, and the schema brought up to date."""
    mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise StoreUnusable(f"{path}: the store cannot use a write-ahead log ({mode})")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    migrate(connection)


def _when_free(step: Callable[[], None]) -> None:
    """Run ``step``, again after a short random pause while SQLite says the file is busy.

    The busy timeout covers waiting for a lock, but not every busy answer: switching
    a fresh file to WAL while other processes open it too fails at once. Bounded by
    the busy timeout, after which the busy error is the caller's (StoreBusy).
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
    pause = 0.002
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in _BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.1)


def _insert_cases(db: sqlite3.Connection, evaluation_id: str, cases: Sequence[Case]) -> None:
    db.executemany(
        "INSERT INTO cases (evaluation_id, case_index, name, input, check_spec, timeout)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                evaluation_id,
                index,
                layout.text(case.name),
                layout.to_json(case.input),
                None if case.spec is None else layout.to_json(case.spec),
                case.timeout,
            )
            for index, case in enumerate(cases)
        ],
    )


def newest_but(ref: str) -> int | None:
    """How many evaluations ``last`` (0) or ``last~N`` (N) skips from the newest; None otherwise."""
    if ref == "last":
        return 0
    head, tilde, count = ref.partition("~")
    if head == "last" and tilde and count.isdigit() and count.isascii():
        # SQLite's OFFSET is a 64-bit integer, and no store holds that many: a longer count
        # (or one too long for int()) names no evaluation, like any count past the oldest.
        return int(count) if len(count) < 19 else _MAX_OFFSET
    return None


#: The largest OFFSET SQLite takes; ``last~N`` past it skips every evaluation there is.
_MAX_OFFSET = 2**63 - 1


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
