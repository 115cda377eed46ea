"""The knowledge index: its own SQLite file (``knowledge.db``) beside the thread database.

Folders, the files read from them (size, mtime, content hash, or why a file was skipped)
and their passages, searched with FTS5's BM25. One thread owns the connection; see
:class:`KnowledgeIndex`. The thread database's schema and migrations are not touched.
"""

from app.store.knowledge.index import KNOWLEDGE_DB_NAME, KnowledgeIndex, knowledge_path
from app.store.knowledge.records import FileRow, FolderRecord, PassageHit, Skipped

__all__ = [
    "KNOWLEDGE_DB_NAME",
    "FileRow",
    "FolderRecord",
    "KnowledgeIndex",
    "PassageHit",
    "Skipped",
    "knowledge_path",
]
