"""The store's tables and how an older database is brought up to date.

``PRAGMA user_version`` holds the number of migrations applied. A new version
appends a step to ``MIGRATIONS`` (never edits an old one); opening a database
applies the missing steps in one transaction, under the write lock it read the
version in, so a database is always at one exact version, however many processes
open it at once. A database from a newer passk-tui is refused, not touched.

A setting's column is not a migration: the settings schema declares it
(``core.inputs.schema``, its type's codec in ``store.rows``), and a store that lacks
it gains it in the same transaction; rows written before read as its default.
"""

from __future__ import annotations

import sqlite3

from passk_tui.store.rows import setting_columns

MIGRATIONS: tuple[str, ...] = (
    # 1: evaluations and their attempts.
    """
    CREATE TABLE evaluations (
        id              TEXT PRIMARY KEY,
        created         REAL NOT NULL,          -- unix seconds
        finished        REAL,                   -- when it last ended (done, cancelled, failed)
        status          TEXT NOT NULL,          -- running | done | cancelled | failed
        error           TEXT,                   -- why it failed, one line
        stack           TEXT,                   -- the stack address; NULL for a local agent
        agents_path     TEXT,                   -- the local agents file used (absolute)
        agent           TEXT NOT NULL,
        version         INTEGER NOT NULL,
        attempts        INTEGER NOT NULL,
        k               INTEGER NOT NULL,
        require         TEXT,                   -- exact, as a fraction ('9/10'); NULL: no gate
        completion_only INTEGER NOT NULL,
        concurrency     INTEGER NOT NULL,
        timeout         REAL NOT NULL,
        cases_path      TEXT NOT NULL,          -- absolute
        cases_sha256    TEXT NOT NULL,          -- of the file's bytes when it was loaded
        case_count      INTEGER NOT NULL
    );

    CREATE TABLE cases (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        case_index    INTEGER NOT NULL,         -- file order, from 0
        name          TEXT NOT NULL,
        input         TEXT NOT NULL,            -- JSON
        check_spec    TEXT,                     -- JSON of the check table; NULL: completion only
        PRIMARY KEY (evaluation_id, case_index)
    ) WITHOUT ROWID;

    CREATE TABLE attempts (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        case_index    INTEGER NOT NULL,
        attempt       INTEGER NOT NULL,         -- 1..n
        case_name     TEXT NOT NULL,
        key           TEXT NOT NULL,            -- the idempotency key
        outcome       TEXT NOT NULL,            -- passed | wrong | errored
        status        TEXT NOT NULL,            -- the Turn status
        output        TEXT NOT NULL,            -- JSON (null when there was none)
        reason        TEXT,                     -- the check's reason for failing
        error         TEXT,
        run_id        TEXT,
        turn_id       TEXT,
        started       REAL NOT NULL,
        ended         REAL NOT NULL,
        duration      REAL NOT NULL,
        usage         TEXT,                     -- JSON
        PRIMARY KEY (evaluation_id, case_index, attempt)
    ) WITHOUT ROWID;

    CREATE INDEX evaluations_by_created ON evaluations(created);
    """,
    # 2: withdrawn attempts. An attempt the user's stop withdrew is kept (outcome
    # 'withdrawn', counted nowhere) beside its retakes, so the key becomes
    # (case, attempt, retake); at most one counted record per (case, attempt).
    """
    CREATE TABLE attempts_v2 (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        case_index    INTEGER NOT NULL,
        attempt       INTEGER NOT NULL,         -- 1..n
        retake        INTEGER NOT NULL,         -- 0, then 1.. for reruns after a withdrawal
        case_name     TEXT NOT NULL,
        key           TEXT NOT NULL,            -- the idempotency key of this retake
        outcome       TEXT NOT NULL,            -- passed | wrong | errored | withdrawn
        status        TEXT NOT NULL,            -- the Turn status ('withdrawn': none was had)
        output        TEXT NOT NULL,
        reason        TEXT,
        error         TEXT,
        run_id        TEXT,
        turn_id       TEXT,
        started       REAL NOT NULL,
        ended         REAL NOT NULL,
        duration      REAL NOT NULL,
        usage         TEXT,
        PRIMARY KEY (evaluation_id, case_index, attempt, retake)
    ) WITHOUT ROWID;

    INSERT INTO attempts_v2
        SELECT evaluation_id, case_index, attempt, 0, case_name, key, outcome, status, output,
               reason, error, run_id, turn_id, started, ended, duration, usage
        FROM attempts;
    DROP TABLE attempts;
    ALTER TABLE attempts_v2 RENAME TO attempts;

    CREATE UNIQUE INDEX attempts_counted ON attempts(evaluation_id, case_index, attempt)
        WHERE outcome != 'withdrawn';
    """,
    # 3: a case's own per-attempt timeout (seconds; NULL: the evaluation's applies).
    """
    ALTER TABLE cases ADD COLUMN timeout REAL;
    """,
    # 4: adaptive attempts. The evaluation's policy (max_attempts NULL: fixed n; precision
    # NULL: the default width) and its --confidence (NULL: not given), so a resume continues
    # the same policy at the same level; and each case's stop reason ('decided pass at 14',
    # 'capped at 40 undecided'; NULL while it is sampled, or for a fixed-n evaluation).
    """
    ALTER TABLE evaluations ADD COLUMN max_attempts INTEGER;
    ALTER TABLE evaluations ADD COLUMN precision REAL;
    ALTER TABLE evaluations ADD COLUMN confidence REAL;
    ALTER TABLE cases ADD COLUMN stop_reason TEXT;
    """,
    # 5: the retries each attempt took (429, 5xx, lost connections); attempts stored
    # before it read as 0, what was known of them.
    """
    ALTER TABLE attempts ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
    """,
    # 6: why the model stopped ('stop', 'length': an `openai` answer cut off by its token
    # limit); NULL when the target said nothing of it, as for attempts stored before.
    """
    ALTER TABLE attempts ADD COLUMN finish_reason TEXT;
    """,
    # 7: attempts in flight. An attempt (case, attempt, retake: its key) is kept here before
    # its Run is requested and leaves in the transaction that stores its record, so a kill
    # at any moment leaves each Run the stack may have started recorded or here, for a
    # resume to replay under the same key before its policy decides anything.
    """
    CREATE TABLE in_flight (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        case_index    INTEGER NOT NULL,
        attempt       INTEGER NOT NULL,
        retake        INTEGER NOT NULL,
        PRIMARY KEY (evaluation_id, case_index, attempt, retake)
    ) WITHOUT ROWID;
    """,
    # 8: what the evaluation measured: its agent definition resolved (JSON, no secrets;
    # core/agent_definition.py). Evaluations stored before it read as NULL: unknown.
    """
    ALTER TABLE evaluations ADD COLUMN agent_definition TEXT;
    """,
    # What it may cost: the version's prices per million tokens in and out (exact decimal
    # text, '0.15'; NULL: no prices), the budgets (--budget-runs; --budget-cost as exact
    # decimal text; NULL: none), and why it ended as it did ('budget spent'; NULL: nothing
    # to add to its status). Evaluations stored before it read as unpriced, unbudgeted.
    """
    ALTER TABLE evaluations ADD COLUMN price_in TEXT;
    ALTER TABLE evaluations ADD COLUMN price_out TEXT;
    ALTER TABLE evaluations ADD COLUMN budget_runs INTEGER;
    ALTER TABLE evaluations ADD COLUMN budget_cost TEXT;
    ALTER TABLE evaluations ADD COLUMN status_reason TEXT;
    """,
    # --family-wise: the gate's promise is the whole suite's (each case judged at the
    # Bonferroni level); evaluations stored before it were judged per case.
    """
    ALTER TABLE evaluations ADD COLUMN family_wise INTEGER NOT NULL DEFAULT 0;
    """,
    # n chosen by looking: 1 once attempts were added after some were recorded (an
    # extension), so its intervals stay anytime-valid. Stored before it, an extension left
    # no trace: such evaluations read as 0, fixed in advance, as they were read then.
    """
    ALTER TABLE evaluations ADD COLUMN extended INTEGER NOT NULL DEFAULT 0;
    """,
    # The Ray node an attempt ran on (--executor ray); NULL: here or on the stack, as for
    # every attempt stored before it.
    """
    ALTER TABLE attempts ADD COLUMN node TEXT;
    """,
    # --label: a few words to tell the evaluation apart in History; NULL: none (as every
    # evaluation stored before it reads).
    """
    ALTER TABLE evaluations ADD COLUMN label TEXT;
    """,
    # Conversations and tools: each attempt's transcript (JSON, ``core/transcript.py``,
    # bounded: ``cut`` counts the messages dropped), kept only for attempts that held a
    # conversation or called tools; a case's ``turns`` or simulated ``user`` (JSON; NULL:
    # one input, as every case stored before it).
    """
    CREATE TABLE transcripts (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        case_index    INTEGER NOT NULL,
        attempt       INTEGER NOT NULL,
        retake        INTEGER NOT NULL,
        transcript    TEXT NOT NULL,
        PRIMARY KEY (evaluation_id, case_index, attempt, retake)
    ) WITHOUT ROWID;
    ALTER TABLE cases ADD COLUMN conversation TEXT;
    """,
    # --executor and --ray-address, so that a resume runs where the evaluation ran; stored
    # before them, an evaluation ran here ('local', no address).
    """
    ALTER TABLE evaluations ADD COLUMN executor TEXT NOT NULL DEFAULT 'local';
    ALTER TABLE evaluations ADD COLUMN ray_address TEXT;
    """,
    # A matrix (--version 1,2,3): the targets run together are one group, named by its first
    # evaluation's id, each at its position (0 is the one the others are compared against).
    # NULL: it ran alone, as every evaluation stored before it did.
    """
    ALTER TABLE evaluations ADD COLUMN group_id TEXT;
    ALTER TABLE evaluations ADD COLUMN group_position INTEGER;
    CREATE INDEX evaluations_by_group ON evaluations(group_id) WHERE group_id IS NOT NULL;
    """,
    # The judge's votes: each Run of a `judge` check's agent on one attempt (run 1.., asks
    # again included; its key is '<attempt key>/judge/<run>'), kept as soon as it ends so a
    # resume never asks it again; reused only for the prompt it answered (its sha256).
    # verdict 1 pass, 0 fail, NULL none; cost exact decimal text (NULL: unpriced or no usage).
    """
    CREATE TABLE judge_votes (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        case_index    INTEGER NOT NULL,
        attempt       INTEGER NOT NULL,
        retake        INTEGER NOT NULL,
        run           INTEGER NOT NULL,
        key           TEXT NOT NULL,
        agent         TEXT NOT NULL,
        version       INTEGER NOT NULL,
        verdict       INTEGER,
        text          TEXT,
        error         TEXT,
        usage         TEXT,
        cost          TEXT,
        prompt_sha256 TEXT NOT NULL,
        PRIMARY KEY (evaluation_id, case_index, attempt, retake, run)
    ) WITHOUT ROWID;
    """,
    # What a simulated user wrote, each message kept as it lands under its key ('<attempt
    # key>/user/<n>'), before the agent is asked to answer it: a resume replaying the attempt
    # gives the agent the same conversation under each turn's key (a user that samples,
    # asked again, would write anew, and a stack would refuse the turn's key: 409). Reused
    # only for the conversation it answered (the sha256 of what the user was shown): a local
    # agent's turns run again, and a different answer gets a new message.
    # output and usage are JSON, as the user's Turn gave them.
    """
    CREATE TABLE user_messages (
        evaluation_id TEXT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
        key           TEXT NOT NULL,
        view_sha256   TEXT NOT NULL,
        output        TEXT NOT NULL,
        usage         TEXT,
        PRIMARY KEY (evaluation_id, key)
    ) WITHOUT ROWID;
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> list[str]:
    """A migration's SQL statements one by one, to run inside a transaction already held.

    ``executescript`` would commit that transaction first (and with it the write lock
    the version was read under), so the script is cut where SQLite says a statement ends.
    """
    found, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if pending.strip():
        found.append(pending.strip())
    return found


class NewerSchema(Exception):
    """The database was written by a newer passk-tui (its version is the argument)."""


def migrate(connection: sqlite3.Connection) -> None:
    """Apply the migrations this database lacks, in one transaction under the write lock.

    Any number of processes may open a fresh or older store at once: the version
    is read again inside ``BEGIN IMMEDIATE`` (which waits out the busy timeout for
    the one migrating), so each step is applied by exactly one of them and the
    others find it done. A store already up to date is never write-locked. The settings'
    columns it lacks (``missing_columns``) are added after the steps, under the same lock.
    """
    if _version(connection) == SCHEMA_VERSION and not missing_columns(connection):
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        current = _version(connection)
        for number in range(current + 1, SCHEMA_VERSION + 1):
            for statement in statements(MIGRATIONS[number - 1]):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {number}")
        for column, kind in missing_columns(connection).items():
            connection.execute(f"ALTER TABLE evaluations ADD COLUMN {column} {kind}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def missing_columns(connection: sqlite3.Connection) -> dict[str, str]:
    """The settings' columns (``store.rows.setting_columns``) the evaluations table lacks."""
    present = {row[1] for row in connection.execute("PRAGMA table_info(evaluations)")}
    return {c: kind for c, kind in setting_columns().items() if c not in present}


def _version(connection: sqlite3.Connection) -> int:
    """The migrations applied; NewerSchema when a newer passk-tui wrote the database."""
    current: int = connection.execute("PRAGMA user_version").fetchone()[0]
    if current > SCHEMA_VERSION:
        raise NewerSchema(current)
    return current
