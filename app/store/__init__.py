"""The local thread database: threads, checkpoints, messages, media, search and approvals.

One SQLite file (WAL, versioned schema) in the data directory. Open it with
:meth:`Store.open` / :meth:`Store.open_data_dir`; graphs save their steps through
:attr:`Store.checkpointer`. Secrets never enter this file.
"""

import app.store._no_numpy  # noqa: F401  (first: see its docstring)
from app.store._agents import name_key as agent_name_key
from app.store._approvals import fingerprint_args
from app.store._export import ModelCheck
from app.store._memories import MAX_MEMORY_CHARS, memory_text_problem
from app.store._schema import BUILTIN_AGENT_ID, SCHEMA_VERSION
from app.store.checkpointer import SqliteCheckpointer
from app.store.errors import (
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreNotWritableError,
    StoreSchemaTooNewError,
)
from app.store.health import DatabaseHealth, check_database, database_files
from app.store.models import (
    AgentRecord,
    AllowRule,
    ApprovalRecord,
    Branch,
    ImportedThread,
    MediaBlob,
    MemoryRecord,
    MessagePage,
    SearchHit,
    StoredArgumentRule,
    Thread,
    ThreadOverview,
)
from app.store.paths import database_path, resolve_data_dir
from app.store.schedule_records import RunRecord, ScheduleRecord
from app.store.store import Store

__all__ = [
    "BUILTIN_AGENT_ID",
    "MAX_MEMORY_CHARS",
    "SCHEMA_VERSION",
    "AgentRecord",
    "AllowRule",
    "ApprovalRecord",
    "Branch",
    "DatabaseHealth",
    "ImportedThread",
    "MediaBlob",
    "MemoryRecord",
    "MessagePage",
    "ModelCheck",
    "RunRecord",
    "ScheduleRecord",
    "SearchHit",
    "SqliteCheckpointer",
    "Store",
    "StoreClosedError",
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "StoreNotWritableError",
    "StoreSchemaTooNewError",
    "StoredArgumentRule",
    "Thread",
    "ThreadOverview",
    "agent_name_key",
    "check_database",
    "database_files",
    "database_path",
    "fingerprint_args",
    "memory_text_problem",
    "resolve_data_dir",
]
