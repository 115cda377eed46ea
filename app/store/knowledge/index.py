"""``KnowledgeIndex``: the knowledge database file and the one thread that uses it."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from app.core.private_files import FILE_MODE, private_folder, tighten
from app.knowledge import Passage
from app.store._one_thread import OneThread
from app.store._own_schema import describe_strangers, remove_strangers
from app.store.errors import (
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreNotWritableError,
)
from app.store.knowledge import _ops, _vectors
from app.store.knowledge._binding import sqlite_binding
from app.store.knowledge._schema import create_or_check, own_schema
from app.store.knowledge.records import FileRow, FolderRecord, PassageHit

__all__ = ["KNOWLEDGE_DB_NAME", "KnowledgeIndex", "knowledge_path"]

KNOWLEDGE_DB_NAME = "knowledge.db"

T = TypeVar("T")

log = logging.getLogger(__name__)


def knowledge_path(data_dir: str | os.PathLike[str]) -> Path:
    """The knowledge index's file in ``data_dir``, beside the thread database."""
    return Path(data_dir) / KNOWLEDGE_DB_NAME


def _connect(db: ModuleType, path: Path | None) -> sqlite3.Connection:
    """Open ``path`` (``None``: in memory) with the binding ``db``; its errors are ``db``'s."""
    conn: sqlite3.Connection
    if path is None:
        conn = db.connect(":memory:", isolation_level=None)
        create_or_check(conn, "in memory")
        return conn
    try:
        private_folder(path.parent, tighten_existing=False)
    except OSError as exc:
        raise StoreNotWritableError(
            f"Parley cannot create {path.parent} for its knowledge index ({exc.strerror})", path
        ) from None
    if not path.exists():
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    try:
        conn = db.connect(path, timeout=10.0, isolation_level=None)
    except db.Error as exc:
        raise StoreNotWritableError(
            f"Parley cannot open its knowledge index {path} ({exc})", path
        ) from None
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        create_or_check(conn, str(path))
        # triggers and views Parley does not make go before anything is written
        removed = remove_strangers(conn, own_schema())
        if removed:
            log.warning(
                "removed from the knowledge index %s what Parley does not make: %s",
                path,
                describe_strangers(removed, limit=10),
            )
    except db.OperationalError as exc:  # locked, read-only, full: not damaged
        conn.close()
        raise StoreNotWritableError(
            f"Parley cannot use its knowledge index {path} ({exc})", path
        ) from None
    except db.DatabaseError as exc:
        conn.close()
        raise StoreCorruptError(
            f"{path} is not a readable knowledge index ({exc}); move it away and Parley "
            "builds a new one from your folders",
            path,
        ) from None
    except ValueError as exc:
        conn.close()
        raise StoreError(str(exc), path) from None
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
        tighten(path.with_name(name))
    return conn


class KnowledgeIndex(OneThread):
    """The knowledge database, used only from its own thread.

    Every method may be called from any thread: it runs the job on the index's thread and
    waits. The ``a``-prefixed ones await it without blocking an event loop.
    """

    def __init__(self, path: Path | None) -> None:
        """Open the index at ``path``; ``None`` keeps one in memory for this session."""
        self.path = Path(path).absolute() if path is not None else Path(":memory:")
        self.problem: str | None = None
        """Why the index is kept in memory only, when it is."""
        super().__init__()
        self._what = "the knowledge index"
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-knowledge")
        self._db = sqlite_binding()
        try:
            self._conn: sqlite3.Connection | None = self._executor.submit(
                _connect, self._db, path if path is None else self.path
            ).result()
        except BaseException:
            self._executor.shutdown(wait=True)
            self._closed = True
            raise
        why_not = self.call(_vectors.load_sqlite_vec, self._db.Error)
        if why_not is not None:
            log.info("vectors are compared without sqlite-vec: %s", why_not)
        self.vectors = _vectors.VectorSearch(sqlite_vec=why_not is None, why_not=why_not)
        """How the nearest vectors are found (sqlite-vec, or a scan where it cannot load)."""

    @classmethod
    def open_data_dir(cls, data_dir: str | os.PathLike[str]) -> KnowledgeIndex:
        """Open (creating it if needed) the index of ``data_dir``; blocking. A damaged file
        is moved aside (``knowledge.db.damaged``) and a new one started: the index holds
        nothing the folders themselves do not, so only the list of folders is lost."""
        path = knowledge_path(data_dir)
        try:
            try:
                return cls(path)
            except StoreCorruptError:
                log.warning("the knowledge index %s is damaged; starting a new one", path)
                for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
                    with contextlib.suppress(OSError):
                        os.replace(path.with_name(name), path.with_name(name + ".damaged"))
                return cls(path)
        except StoreError as exc:
            # a read-only or full disk must not keep Parley from starting: the folders added
            # now are indexed for this session only
            log.warning("the knowledge index is kept in memory: %s", exc)
            index = cls(None)
            index.problem = str(exc)
            return index

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        if self._conn is None:
            raise StoreClosedError(f"the knowledge index {self.path} is closed", self.path)
        try:
            return fn(self._conn, *args)
        except self._db.OperationalError as exc:
            raise StoreError(f"the knowledge index {self.path} failed: {exc}", self.path) from exc

    # the jobs, by name --------------------------------------------------------------------

    def add_folder(self, path: str, agent: str | None = None) -> tuple[int, bool]:
        """Add a resolved folder; its id and whether it is new."""
        return self.call(_ops.add_folder, path, agent)

    def remove_folder(self, folder_id: int) -> None:
        """Forget a folder and everything indexed from it."""
        self.call(_ops.remove_folder, folder_id)

    def folders(self) -> list[FolderRecord]:
        """Every folder and how it stands."""
        return self.call(_ops.list_folders)

    def file_rows(self, folder_id: int) -> dict[str, FileRow]:
        """A folder's files as last indexed, by path inside it."""
        return self.call(_ops.file_rows, folder_id)

    def save_file(
        self, folder_id: int, rel: str, size: int, mtime_ns: int, sha: str, passages: list[Passage]
    ) -> None:
        """Save a file's passages and its "done" row: in one transaction, or for a file of
        more than :data:`~app.store.knowledge._ops.SAVE_BATCH` passages in batches, the row
        marked done last (a kill in between leaves the file to be read again)."""
        batch = _ops.SAVE_BATCH
        if len(passages) <= batch:
            self.call(_ops.save_file, folder_id, rel, size, mtime_ns, sha, passages)
            return
        while self.call(_ops.drop_passages, folder_id, rel, batch):
            pass
        file_id = self.call(_ops.begin_file, folder_id, rel)
        for at in range(0, len(passages), batch):
            self.call(_ops.add_passages, file_id, passages[at : at + batch])
        self.call(_ops.finish_file, file_id, size, mtime_ns, sha)

    def save_skipped(
        self, folder_id: int, rel: str, size: int, mtime_ns: int, sha: str, reason: str
    ) -> None:
        """Record a file that could not be read and why."""
        self.call(_ops.save_skipped, folder_id, rel, size, mtime_ns, sha, reason)

    def move_file(self, file_id: int, rel: str, mtime_ns: int) -> None:
        """Keep a renamed file's passages under its new path."""
        self.call(_ops.move_file, file_id, rel, mtime_ns)

    def touch_file(self, file_id: int, mtime_ns: int) -> None:
        """Note a new time on a file whose content is unchanged."""
        self.call(_ops.touch_file, file_id, mtime_ns)

    def delete_files(self, file_ids: list[int]) -> None:
        """Forget files that are gone."""
        self.call(_ops.delete_files, file_ids)

    def set_synced(self, folder_id: int, when: float) -> None:
        """Note when the folder's sync finished."""
        self.call(_ops.set_synced, folder_id, when)

    def search(
        self, text: str, limit: int = 8, agent: str | None = None, floor: float = 0.0
    ) -> list[PassageHit]:
        """The best passages for ``text``, best first; none whose relevance is under
        ``floor``."""
        return self.call(_ops.search, text, limit, agent, floor)

    async def asearch(
        self, text: str, limit: int = 8, agent: str | None = None, floor: float = 0.0
    ) -> list[PassageHit]:
        """:meth:`search` without blocking the event loop."""
        return await self.acall(_ops.search, text, limit, agent, floor)

    # vectors (search by meaning) -------------------------------------------------------

    def use_embedding_model(self, name: str) -> bool:
        """Keep vectors of model ``name`` only (others are dropped); whether any were."""
        return self.call(_vectors.use_embedding_model, name)

    def embedding_model(self) -> str | None:
        """The model whose vectors the index holds, ``None`` before any was chosen."""
        return self.call(_vectors.embedding_model)

    def missing_vectors(
        self, folder_id: int, rel: str | None = None, limit: int = 16
    ) -> list[tuple[int, str]]:
        """Passages of a folder (or of its file ``rel``) without a vector: ids and texts."""
        return self.call(_vectors.missing_vectors, folder_id, rel, limit)

    def missing_count(self, folder_id: int) -> int:
        """How many passages of a folder have no vector yet."""
        return self.call(_vectors.missing_count, folder_id)

    def save_vectors(self, model: str, vectors: Sequence[tuple[int, Sequence[float]]]) -> int:
        """Save passages' vectors made by ``model``; how many were kept."""
        return self.call(_vectors.save_vectors, model, vectors)

    def vector_count(self) -> int:
        """How many passages have a vector."""
        return self.call(_vectors.vector_count)

    async def avector_count(self) -> int:
        """:meth:`vector_count` without blocking the event loop."""
        return await self.acall(_vectors.vector_count)

    async def asearch_fused(
        self,
        text: str,
        vector: Sequence[float],
        limit: int = 8,
        agent: str | None = None,
        floors: tuple[float, float] = (0.0, -1.0),
    ) -> list[PassageHit]:
        """The best passages by words and meaning fused (``vector`` is ``text``'s); those
        under the floors (words' relevance, meaning's cosine) are left out."""
        return await self.acall(
            _vectors.fused_search, self.vectors, text, vector, limit, agent, *floors
        )

    async def afolders(self) -> list[FolderRecord]:
        """:meth:`folders` without blocking the event loop."""
        return await self.acall(_ops.list_folders)

    async def aadd_folder(self, path: str, agent: str | None = None) -> tuple[int, bool]:
        """:meth:`add_folder` without blocking the event loop."""
        return await self.acall(_ops.add_folder, path, agent)

    async def aset_folder_agent(self, folder_id: int, agent: str | None) -> None:
        """Make the folder belong to ``agent`` (``None``: to no agent)."""
        await self.acall(_ops.set_folder_agent, folder_id, agent)

    async def aremove_folder(self, folder_id: int) -> None:
        """:meth:`remove_folder` without blocking the event loop."""
        await self.acall(_ops.remove_folder, folder_id)

    async def aset_synced(self, folder_id: int, when: float) -> None:
        """:meth:`set_synced` without blocking the event loop."""
        await self.acall(_ops.set_synced, folder_id, when)

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(self._db.Error):
                conn.execute("PRAGMA optimize")
            conn.close()
        _ops.close_scratch()  # this thread's, if a search made one
