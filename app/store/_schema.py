"""The database schema and its ordered migrations (``PRAGMA user_version`` is the version)."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from app.store._own_schema import Schema, expected_schema
from app.store.errors import StoreCorruptError, StoreSchemaTooNewError

__all__ = [
    "APPLICATION_ID",
    "BUILTIN_AGENT_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "migrate",
    "own_schema",
]

APPLICATION_ID = 0x50524C59  # "PRLY": marks the file as Parley's
"""Written to ``PRAGMA application_id`` so a foreign SQLite file is never taken for ours."""

_V1 = """
CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    model TEXT,
    system_prompt TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    head_id TEXT,
    head_seq INTEGER NOT NULL DEFAULT 0,
    head_segment INTEGER NOT NULL DEFAULT 0,
    next_position INTEGER NOT NULL DEFAULT 0,
    message_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE checkpoints (
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    checkpoint_id TEXT NOT NULL,
    parent_id TEXT,
    segment INTEGER NOT NULL,
    step INTEGER NOT NULL,
    source TEXT NOT NULL,
    created_at REAL NOT NULL,
    message_count INTEGER NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (thread_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX checkpoints_by_id ON checkpoints(thread_id, checkpoint_id);

CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    segment INTEGER NOT NULL,
    message_id BLOB NOT NULL,
    position INTEGER NOT NULL,
    valid_from INTEGER NOT NULL,
    valid_to INTEGER,
    text TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL
);
CREATE INDEX messages_order ON messages(thread_id, segment, position);
CREATE INDEX messages_current ON messages(thread_id, segment, message_id)
    WHERE valid_to IS NULL;

CREATE VIEW messages_indexed AS
    SELECT m.id AS id, m.text AS text FROM messages m
    JOIN threads t ON t.id = m.thread_id AND m.segment = t.head_segment
    WHERE m.valid_to IS NULL AND m.text != '';
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text, content='messages_indexed', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);

CREATE TABLE fts_queue (
    qid INTEGER PRIMARY KEY,
    row_id INTEGER NOT NULL,
    op INTEGER NOT NULL
);

CREATE TABLE pending_interrupts (
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    interrupt_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (thread_id, ordinal)
);

CREATE TABLE media (
    sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at REAL NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE thread_media (
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    sha256 TEXT NOT NULL REFERENCES media(sha256),
    PRIMARY KEY (thread_id, sha256)
) WITHOUT ROWID;
CREATE INDEX thread_media_by_sha ON thread_media(sha256);

CREATE TABLE approval_log (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    thread_id TEXT,
    tool TEXT NOT NULL,
    args_fingerprint TEXT NOT NULL CHECK (length(args_fingerprint) = 64),
    decision TEXT NOT NULL CHECK (decision IN ('requested', 'approve', 'deny', 'edit', 'always',
                                               'allowed_by_rule')),
    scope TEXT NOT NULL CHECK (scope IN ('once', 'thread', 'tool')),
    reason TEXT
);
CREATE INDEX approval_log_by_thread ON approval_log(thread_id, time);

CREATE TABLE always_allow (
    id INTEGER PRIMARY KEY,
    tool TEXT NOT NULL,
    thread_id TEXT,
    created_at REAL NOT NULL
);
CREATE UNIQUE INDEX always_allow_rule ON always_allow(tool, ifnull(thread_id, ''));
"""


def _v1(db: sqlite_utils.Database) -> None:
    for statement in _V1.split(";\n"):
        if statement.strip():
            db.conn.execute(statement)


def _v2(db: sqlite_utils.Database) -> None:
    # media a message names before the blob is stored: linked to the thread when it arrives
    db.conn.execute(
        "CREATE TABLE media_wanted ("
        " thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
        " sha256 TEXT NOT NULL,"
        " PRIMARY KEY (sha256, thread_id)"
        ") WITHOUT ROWID"
    )


def _v3(db: sqlite_utils.Database) -> None:
    # the store answering the thread right now (see _lease), and when it last saved
    db.conn.execute("ALTER TABLE threads ADD COLUMN run_owner TEXT")
    db.conn.execute("ALTER TABLE threads ADD COLUMN run_seen REAL")


def _v4(db: sqlite_utils.Database) -> None:
    # flushing the search queue looks each row up by row_id: without this index a full
    # snapshot of n messages cost n * n row visits
    db.conn.execute("CREATE INDEX fts_queue_by_row ON fts_queue(row_id, op)")


def _v5(db: sqlite_utils.Database) -> None:
    # each tool call's result as it finishes, so a run cut off mid-step does not repeat it
    db.conn.execute(
        "CREATE TABLE step_writes ("
        " thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
        " checkpoint_id TEXT NOT NULL,"
        " key TEXT NOT NULL,"
        " body TEXT NOT NULL,"
        " PRIMARY KEY (thread_id, checkpoint_id, key)"
        ") WITHOUT ROWID"
    )


def _v6(db: sqlite_utils.Database) -> None:
    # every connection the process opened or was refused: address, purpose, outcome only
    db.conn.execute(
        "CREATE TABLE network_ledger ("
        " id INTEGER PRIMARY KEY,"
        " time REAL NOT NULL,"
        " host TEXT NOT NULL,"
        " port INTEGER,"
        " purpose TEXT NOT NULL,"
        " local INTEGER NOT NULL,"
        " outcome TEXT NOT NULL CHECK (outcome IN ('allowed', 'refused')),"
        " kind TEXT NOT NULL CHECK (kind IN ('connect', 'lookup')),"
        " ref TEXT UNIQUE,"
        " sent INTEGER,"
        " received INTEGER"
        ")"
    )
    db.conn.execute("CREATE INDEX network_ledger_by_time ON network_ledger(time)")


BUILTIN_AGENT_ID = "parley"
"""The id of "Parley", the built-in agent (plain chat, no tools) every thread has by default."""


def _v7(db: sqlite_utils.Database) -> None:
    # agents a person defines; "Parley" is built in, and every existing thread belongs to it
    db.conn.execute(
        "CREATE TABLE agents ("
        " id TEXT PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " name_key TEXT NOT NULL UNIQUE,"
        " description TEXT NOT NULL DEFAULT '',"
        " instructions TEXT NOT NULL DEFAULT '',"
        " model TEXT,"
        " tools TEXT NOT NULL DEFAULT '[]',"
        " delegates TEXT NOT NULL DEFAULT '[]',"
        " limits TEXT NOT NULL DEFAULT '{}',"
        " starters TEXT NOT NULL DEFAULT '[]',"
        " builtin INTEGER NOT NULL DEFAULT 0,"
        " created_at REAL NOT NULL,"
        " updated_at REAL NOT NULL"
        ")"
    )
    db.conn.execute(
        "INSERT INTO agents (id, name, name_key, description, created_at, updated_at, builtin)"
        " VALUES (?, 'Parley', 'parley', 'Plain chat, no tools.', 0, 0, 1)",
        (BUILTIN_AGENT_ID,),
    )
    db.conn.execute(
        f"ALTER TABLE threads ADD COLUMN agent_id TEXT NOT NULL DEFAULT '{BUILTIN_AGENT_ID}'"
    )
    db.conn.execute("CREATE INDEX threads_by_agent ON threads(agent_id)")


def _argument_rules(db: sqlite_utils.Database) -> None:
    # "always allow TOOL when ARGUMENT falls inside VALUE" (a folder, a host, a value), and
    # which rule let each audited call run; touches only its own table and column
    db.conn.execute(
        "CREATE TABLE IF NOT EXISTS argument_rules ("
        " id INTEGER PRIMARY KEY,"
        " tool TEXT NOT NULL,"
        " kind TEXT NOT NULL CHECK (kind IN ('folder', 'host', 'value')),"
        " argument TEXT NOT NULL,"
        " value TEXT NOT NULL,"
        " thread_id TEXT,"
        " created_at REAL NOT NULL"
        ")"
    )
    db.conn.execute(
        "CREATE UNIQUE INDEX IF NOT EXISTS argument_rules_unique ON argument_rules"
        "(tool, kind, argument, value, ifnull(thread_id, ''))"
    )
    columns = {row[1] for row in db.conn.execute("PRAGMA table_info(approval_log)")}
    if "rule" not in columns:
        db.conn.execute("ALTER TABLE approval_log ADD COLUMN rule TEXT")


def _agent_rules(db: sqlite_utils.Database) -> None:
    # an argument rule may belong to an agent: it then allows only that agent's calls
    db.conn.execute("ALTER TABLE argument_rules ADD COLUMN agent_id TEXT")
    db.conn.execute("DROP INDEX IF EXISTS argument_rules_unique")
    db.conn.execute(
        "CREATE UNIQUE INDEX argument_rules_unique ON argument_rules"
        "(tool, kind, argument, value, ifnull(thread_id, ''), ifnull(agent_id, ''))"
    )
    db.conn.execute("CREATE INDEX argument_rules_by_agent ON argument_rules(agent_id)")


def _thread_rule_agents(db: sqlite_utils.Database) -> None:
    # "always allow in this thread" covers the agent it was given for: a delegate (its name)
    # or the thread's own agent (''); a rule of every thread keeps '' and covers every agent
    db.conn.execute("ALTER TABLE always_allow ADD COLUMN agent TEXT NOT NULL DEFAULT ''")
    db.conn.execute("DROP INDEX IF EXISTS always_allow_rule")
    db.conn.execute(
        "CREATE UNIQUE INDEX always_allow_rule ON always_allow(tool, ifnull(thread_id, ''), agent)"
    )


def _memories(db: sqlite_utils.Database) -> None:
    # what a person let Parley remember: a short text for one agent (agent_id) or everyone
    # (NULL), where it came from (a thread's message, or NULL: added by the person), pinned,
    # and local only (never put before a model on another computer); searchable by words
    db.conn.execute(
        "CREATE TABLE memories ("
        " n INTEGER PRIMARY KEY,"
        " id TEXT NOT NULL UNIQUE,"
        " text TEXT NOT NULL,"
        " agent_id TEXT,"
        " thread_id TEXT,"
        " message_id TEXT,"
        " made_at REAL NOT NULL,"
        " last_used_at REAL,"
        " pinned INTEGER NOT NULL DEFAULT 0,"
        " local_only INTEGER NOT NULL DEFAULT 0"
        ")"
    )
    db.conn.execute("CREATE INDEX memories_by_agent ON memories(agent_id, pinned)")
    db.conn.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5("
        " text, content='memories', content_rowid='n',"
        " tokenize='porter unicode61 remove_diacritics 2'"
        ")"
    )


def _inbound_requests(db: sqlite_utils.Database) -> None:
    # the ledger also keeps the requests parley serve received (kind 'request')
    _rebuild_ledger(db, outcomes="'allowed', 'refused'", kinds="'connect', 'lookup', 'request'")


def _rebuild_ledger(db: sqlite_utils.Database, *, outcomes: str, kinds: str) -> None:
    """Build the network ledger again with its rows and these CHECKs (SQLite cannot change a
    CHECK in place)."""
    db.conn.execute(
        "CREATE TABLE network_ledger_next ("
        " id INTEGER PRIMARY KEY,"
        " time REAL NOT NULL,"
        " host TEXT NOT NULL,"
        " port INTEGER,"
        " purpose TEXT NOT NULL,"
        " local INTEGER NOT NULL,"
        f" outcome TEXT NOT NULL CHECK (outcome IN ({outcomes})),"
        f" kind TEXT NOT NULL CHECK (kind IN ({kinds})),"
        " ref TEXT UNIQUE,"
        " sent INTEGER,"
        " received INTEGER"
        ")"
    )
    db.conn.execute("INSERT INTO network_ledger_next SELECT * FROM network_ledger")
    db.conn.execute("DROP TABLE network_ledger")
    db.conn.execute("ALTER TABLE network_ledger_next RENAME TO network_ledger")
    db.conn.execute("CREATE INDEX network_ledger_by_time ON network_ledger(time)")


def _schedules(db: sqlite_utils.Database) -> None:
    # an agent's prompt run on its own at the times a person set (kind 'every': a WHEN such as
    # "day 08:00" or "2h"; 'cron': a cron expression; read in the time zone ``zone``), into a
    # new thread each run (thread_id NULL) or one thread; each run a row, one per due time,
    # and never two running at once for one schedule
    db.conn.execute(
        "CREATE TABLE schedules ("
        " id TEXT PRIMARY KEY,"
        " agent_id TEXT NOT NULL,"
        " prompt TEXT NOT NULL,"
        " kind TEXT NOT NULL CHECK (kind IN ('every', 'cron')),"
        " rule TEXT NOT NULL,"
        " zone TEXT NOT NULL,"
        " thread_id TEXT,"
        " model TEXT,"
        " limits TEXT NOT NULL DEFAULT '{}',"
        " paused INTEGER NOT NULL DEFAULT 0,"
        " run_now INTEGER NOT NULL DEFAULT 0,"
        " created_at REAL NOT NULL,"
        " next_due REAL"
        ")"
    )
    db.conn.execute(
        "CREATE TABLE schedule_runs ("
        " id INTEGER PRIMARY KEY,"
        " schedule_id TEXT NOT NULL,"
        " due_at REAL NOT NULL,"
        " started_at REAL NOT NULL,"
        " finished_at REAL,"
        " status TEXT NOT NULL"
        "  CHECK (status IN ('running', 'done', 'waiting', 'failed', 'stopped')),"
        " sentence TEXT NOT NULL DEFAULT '',"
        " note TEXT NOT NULL DEFAULT '',"
        " missed INTEGER NOT NULL DEFAULT 0,"
        " thread_id TEXT,"
        " tokens INTEGER NOT NULL DEFAULT 0,"
        " cost REAL NOT NULL DEFAULT 0,"
        " UNIQUE (schedule_id, due_at)"
        ")"
    )
    db.conn.execute(
        "CREATE UNIQUE INDEX schedule_runs_one_running ON schedule_runs(schedule_id)"
        " WHERE status = 'running'"
    )
    db.conn.execute("CREATE INDEX schedule_runs_by_start ON schedule_runs(started_at)")


def _branches(db: sqlite_utils.Database) -> None:
    # the alternatives of a message within one thread (an edited question, a regenerated
    # answer): each is the path from its first message (message_id, after parent_id, '' at
    # the start) to the checkpoint where it was last shown; within is the alternative whose
    # path holds the point, NULL at the top; the thread's latest checkpoint is the path shown
    db.conn.execute(
        "CREATE TABLE branches ("
        " id INTEGER PRIMARY KEY,"
        " thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
        " parent_id BLOB NOT NULL,"
        " at INTEGER NOT NULL,"
        " n INTEGER NOT NULL,"
        " message_id BLOB NOT NULL,"
        " checkpoint_id TEXT NOT NULL,"
        " within INTEGER,"
        " line TEXT NOT NULL DEFAULT '',"
        " name TEXT NOT NULL DEFAULT '',"
        " created_at REAL NOT NULL"
        ")"
    )
    db.conn.execute("CREATE UNIQUE INDEX branches_by_point ON branches(thread_id, parent_id, n)")


def _version_indexes(db: sqlite_utils.Database) -> None:
    # showing another version of a message touches only the rows that differ: those made
    # since its tip (current rows by valid_from) and those closed since (closed rows by valid_to)
    db.conn.execute(
        "CREATE INDEX messages_made ON messages(thread_id, segment, valid_from) "
        "WHERE valid_to IS NULL"
    )
    db.conn.execute(
        "CREATE INDEX messages_closed ON messages(thread_id, segment, valid_to) "
        "WHERE valid_to IS NOT NULL"
    )


def _memory_vectors(db: sqlite_utils.Database) -> None:
    # a memory's vector (float32) for search by meaning, made by the embedding model named
    # in model (one a memory; a vector of another model is made again); gone with its memory.
    # memory_vectors_seen.generation changes with every vector and every pin (each change
    # bumps it in its transaction): what a search keeps in memory between questions is read
    # again only then
    db.conn.execute(
        "CREATE TABLE memory_vectors ("
        " n INTEGER PRIMARY KEY REFERENCES memories(n) ON DELETE CASCADE,"
        " model TEXT NOT NULL,"
        " vector BLOB NOT NULL"
        ")"
    )
    db.conn.execute(
        "CREATE TABLE memory_vectors_seen ("
        " id INTEGER PRIMARY KEY CHECK (id = 1),"
        " generation INTEGER NOT NULL"
        ")"
    )
    db.conn.execute("INSERT INTO memory_vectors_seen (id, generation) VALUES (1, 0)")


def _thread_origin(db: sqlite_utils.Database) -> None:
    # where a thread was started from when not in the window: "api" for a run asked through
    # the local server (the sidebar marks it)
    db.conn.execute("ALTER TABLE threads ADD COLUMN origin TEXT NOT NULL DEFAULT ''")


def _unanswered_connections(db: sqlite_utils.Database) -> None:
    # a connection nothing took (nothing listened, or no answer came) is kept as such, not as
    # connected
    _rebuild_ledger(
        db, outcomes="'allowed', 'refused', 'unanswered'", kinds="'connect', 'lookup', 'request'"
    )


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
    _v1,
    _v2,
    _v3,
    _v4,
    _v5,
    _v6,
    _v7,
    _argument_rules,
    _agent_rules,
    _thread_rule_agents,
    _memories,
    _inbound_requests,
    _schedules,
    _branches,
    _version_indexes,
    _memory_vectors,
    _thread_origin,
    _unanswered_connections,
]
"""Migration ``i`` takes the schema from version ``i`` to ``i + 1``; append, never edit."""

SCHEMA_VERSION = len(MIGRATIONS)


def own_schema(version: int) -> Schema:
    """Every object (and its SQL) Parley's migrations give a new database at ``version``:
    all a Parley database of that version may hold."""
    return _built(tuple(MIGRATIONS[: max(0, min(version, SCHEMA_VERSION))]))


@functools.lru_cache(maxsize=8)
def _built(steps: tuple[Callable[[sqlite_utils.Database], None], ...]) -> Schema:
    def build(conn: sqlite3.Connection) -> None:
        db = sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)
        for step in steps:
            step(db)

    return expected_schema(build)


def check_version(db: sqlite_utils.Database, path: Path) -> int:
    """Return the file's schema version after checking it is a Parley database this code can
    use; raises :class:`StoreCorruptError` or :class:`StoreSchemaTooNewError` otherwise."""
    conn = db.conn
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app_id not in (0, APPLICATION_ID) or (
        version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    ):
        raise StoreCorruptError(
            f"{path} is an SQLite database of another program, not a Parley thread database. "
            f"Nothing was changed in it. Move it away or choose another data directory with "
            f"--data-dir or PARLEY_DATA_DIR.",
            path,
        )
    if version > SCHEMA_VERSION:
        raise StoreSchemaTooNewError(
            f"{path} was written by a newer Parley (schema version {version}; this version "
            f"knows up to {SCHEMA_VERSION}). Nothing was changed in it. Update Parley, or "
            f"choose another data directory with --data-dir or PARLEY_DATA_DIR.",
            path,
        )
    return version


def migrate(
    db: sqlite_utils.Database,
    path: Path,
    before: Callable[[int], object] | None = None,
) -> None:
    """Bring the schema up to :data:`SCHEMA_VERSION` in one transaction: every migration is
    saved, or none is and the file is as it was.

    ``before`` is called with the file's version first when there is anything to migrate in
    a file that already holds a schema (the backup taken before a migration).
    """
    version = check_version(db, path)
    if version >= SCHEMA_VERSION:
        return
    if version > 0 and before is not None:
        before(version)
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        # another process may have migrated meanwhile
        for target in range(
            int(conn.execute("PRAGMA user_version").fetchone()[0]) + 1, SCHEMA_VERSION + 1
        ):
            MIGRATIONS[target - 1](db)
            conn.execute(f"PRAGMA user_version = {target}")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
