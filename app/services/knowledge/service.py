"""``KnowledgeService``: knowledge folders, indexed in the background, watched, searched.

Folders are added, removed, listed (with files, size, last sync and the files that could not
be read, with reasons) and reindexed here; searching returns numbered sources. Indexing runs
one folder at a time in a worker thread (each file's text read and cut in one child process,
started when first needed and stopped with the service), telling its progress as
``KnowledgeProgress`` events and finishing each with ``KnowledgeChanged``; :meth:`cancel`
stops it at once (the file being read is given up). While Parley runs the folders are
watched (``watchfiles``: each folder the last sync walked, on its own, so no link is followed
out) and a change is synced within a second or two; a file that is still changing (a log
being written) is read again only once it has been left alone for :data:`SETTLE_S` seconds,
not at every change. :meth:`start` also resyncs every folder, since changes made while
Parley was closed were not seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Collection
from functools import partial
from pathlib import Path
from typing import Any, Literal

from app.core.errors import UserError
from app.core.graph.context import RunContext
from app.core.tools import Tool
from app.knowledge import Embedder, ranking
from app.services.bus import EventBus
from app.services.events import KnowledgeChanged, KnowledgeProgress, ToolsChanged
from app.services.knowledge.embedders import DownloadProgress, EmbeddingChoice, embed_missing
from app.services.knowledge.needs import AgentRecords, EmbeddingModels, asking_agent
from app.services.knowledge.opening import CitedFile, cited_file
from app.services.knowledge.reader import PassageReader
from app.services.knowledge.sources import source_of
from app.services.knowledge.sync import SyncProgress, SyncResult, sync_folder
from app.store.knowledge import FolderRecord, KnowledgeIndex, PassageHit
from app.tools.knowledge import search_knowledge_tool

__all__ = ["KnowledgeService"]

log = logging.getLogger(__name__)

_OVERLAP_S = 2.0
"""How long a replaced watcher keeps watching beside its successor."""

SETTLE_S = 2.0
"""A changed file is read again once it has not changed for this many seconds."""


class KnowledgeService:
    """The knowledge folders of one data directory; see the module docstring. ``agents`` say
    whose folders a run searches (without them, a delegate's run searches only the folders of
    no agent); ``embeddings`` list the embedding models and save the choice."""

    def __init__(
        self,
        index: KnowledgeIndex,
        events: EventBus,
        *,
        watch: bool = True,
        reader: PassageReader | None = None,
        agents: AgentRecords | None = None,
        embeddings: EmbeddingModels | None = None,
    ) -> None:
        self._index = index
        self._agents = agents
        self._embeddings = embeddings
        self._reader = reader or PassageReader()
        self._events = events
        self._watching = watch
        self._folders: list[FolderRecord] = index.folders()
        self._queue: list[int] = []
        self._at_once: set[int] = set()
        """Folders whose next sync reads every change now (asked for: add, reindex, start),
        not only the changes that have settled (what the watcher saw)."""
        self._runner: asyncio.Task[None] | None = None
        self._watchers: list[tuple[asyncio.Task[None], asyncio.Event]] = []
        self._cancel = threading.Event()
        self._idle: asyncio.Event | None = None
        self._closed = False
        self._tool: Tool[..., Any] | None = None
        self._settling: dict[int, asyncio.TimerHandle] = {}
        """Each folder's sync to come once its files that were still changing have settled."""
        self._walked: dict[int, tuple[str, ...]] = {}
        """Each folder's folders as its last sync walked them: what is watched."""
        self._embedder: Embedder | None = None
        self._embed_problem: str | None = None
        self.embedding_spec = ""
        """The embedding model's setting (``""``: none); see :meth:`use_embedder`."""

    @classmethod
    async def open(
        cls,
        data_dir: str | os.PathLike[str],
        events: EventBus,
        *,
        watch: bool = True,
        reader: PassageReader | None = None,
        agents: AgentRecords | None = None,
        embeddings: EmbeddingModels | None = None,
    ) -> KnowledgeService:
        """Open the index of ``data_dir`` off the loop (nothing is synced until
        :meth:`start`)."""
        index = await asyncio.to_thread(KnowledgeIndex.open_data_dir, data_dir)
        made = partial(cls, watch=watch, reader=reader, agents=agents, embeddings=embeddings)
        return await asyncio.to_thread(made, index, events)

    def embedding_choices(self) -> list[EmbeddingChoice]:
        """The embedding models to choose from (blocking: it reads the models folder)."""
        return self._embeddings.choices() if self._embeddings is not None else []

    @property
    def choose_embedding(self) -> Callable[[str, DownloadProgress | None], Awaitable[None]] | None:
        """Save the embedding model chosen (see :class:`EmbeddingModels`; ``None``: here none)."""
        return self._embeddings.choose if self._embeddings is not None else None

    # Folders ---------------------------------------------------------------------------

    @property
    def problem(self) -> str | None:
        """Why the index is kept for this session only (a read-only or full disk), if it is."""
        return self._index.problem

    @property
    def has_folders(self) -> bool:
        """Whether any knowledge folder is set up."""
        return bool(self._folders)

    @property
    def known(self) -> list[FolderRecord]:
        """The folders as last read (see :meth:`folders` for fresh counts)."""
        return list(self._folders)

    async def folders(self) -> list[FolderRecord]:
        """Every folder with its files, size, last sync and unreadable files."""
        self._folders = await self._index.afolders()
        return list(self._folders)

    async def add_folder(self, folder: str | os.PathLike[str], agent: str | None = None) -> str:
        """Add ``folder`` (it is indexed in the background); returns its resolved path.
        Raises :class:`UserError` when it is not a folder."""

        def check() -> str:
            path = Path(folder).expanduser()
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):
                raise UserError(f"{path} does not exist; choose an existing folder") from None
            if not real.is_dir():
                raise UserError(f"{path} is not a folder; choose a folder to add as knowledge")
            return str(real)

        path = await asyncio.to_thread(check)
        had = self.has_folders
        folder_id, _ = await self._index.aadd_folder(path, agent)
        await self.folders()
        self._events.emit(KnowledgeChanged(path))
        if not had:  # search_knowledge is on offer from now on
            self._events.emit(ToolsChanged())
        self._schedule(folder_id)
        self._restart_watcher()
        return path

    def cited_file(self, url: str) -> CitedFile | None:
        """The file a citation's ``file://`` address would open (links followed) and why to
        ask before opening it, if so: it is not a file of the kind indexed inside one of the
        folders as they are now, or it is a program (see :mod:`.opening`)."""
        return cited_file(url, [record.path for record in self._folders])

    def of_agent(self, agent: str) -> list[str]:
        """The folders that belong to the agent ``agent`` (its id), as last read."""
        return [f.path for f in self._folders if f.agent == agent]

    async def set_owner(self, agent: str, folders: Collection[str]) -> None:
        """Make ``folders`` (added already, as resolved paths) belong to the agent ``agent``
        (its id) and those it had besides belong to no agent."""
        wanted = set(folders)
        changed = False
        for record in list(self._folders):
            owner = agent if record.path in wanted else None
            if owner is None and record.agent != agent:
                continue
            if record.agent != owner:
                await self._index.aset_folder_agent(record.id, owner)
                changed = True
        if changed:
            await self.folders()
            self._events.emit(KnowledgeChanged(""))

    async def remove_folder(self, folder: str | os.PathLike[str]) -> bool:
        """Forget ``folder`` and what was indexed from it (its files are untouched); whether
        it was a knowledge folder."""
        record = self._find(folder)
        if record is None:
            return False
        if record.id in self._queue:
            self._queue.remove(record.id)
        await self._index.aremove_folder(record.id)
        await self.folders()
        self._events.emit(KnowledgeChanged(record.path))
        if not self.has_folders:  # search_knowledge is no longer on offer
            self._events.emit(ToolsChanged())
        self._restart_watcher()
        return True

    def _find(self, folder: str | os.PathLike[str]) -> FolderRecord | None:
        wanted = {str(folder), str(Path(folder).expanduser().absolute())}
        with contextlib.suppress(OSError, RuntimeError):
            wanted.add(str(Path(folder).expanduser().resolve()))
        return next((f for f in self._folders if f.path in wanted), None)

    # Indexing --------------------------------------------------------------------------

    def start(self) -> None:
        """Resync every folder (changes made while Parley was closed) and watch them."""
        for record in self._folders:
            self._schedule(record.id)
        self._restart_watcher()

    async def reindex(self, folder: str | os.PathLike[str] | None = None) -> None:
        """Sync ``folder`` (or every folder) now, in the background."""
        await self.folders()
        targets = self._folders if folder is None else [f for f in [self._find(folder)] if f]
        if folder is not None and not targets:
            raise UserError(f"{folder} is not a knowledge folder; add it first")
        for record in targets:
            self._schedule(record.id)

    def cancel(self) -> None:
        """Stop indexing now (the file being read is given up); folders waiting their turn wait
        for the next change or reindex. What was read so far is kept."""
        self._queue.clear()
        if self._runner is not None and not self._runner.done():
            self._cancel.set()

    async def wait_idle(self) -> None:
        """Return once no folder is being or waiting to be indexed."""
        while self._runner is not None and not self._runner.done():
            await asyncio.shield(self._runner)

    def _schedule(self, folder_id: int, *, at_once: bool = True) -> None:
        if self._closed:
            return
        if at_once:
            self._at_once.add(folder_id)
        if folder_id in self._queue:
            return
        self._queue.append(folder_id)
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._run_queue())

    async def _run_queue(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue and not self._closed:
            folder_id = self._queue.pop(0)
            record = next((f for f in self._folders if f.id == folder_id), None)
            if record is None:
                continue
            self._cancel.clear()
            settle_s = 0.0 if folder_id in self._at_once else SETTLE_S
            self._at_once.discard(folder_id)

            def report(p: SyncProgress, path: str = record.path) -> None:
                event = KnowledgeProgress(
                    path, p.files_done, p.files_total, p.bytes_done, p.bytes_total, p.current
                )
                loop.call_soon_threadsafe(self._events.emit, event)

            try:
                result = await asyncio.to_thread(
                    sync_folder,
                    self._index,
                    record,
                    report,
                    self._cancel,
                    self._vectors_hook(record),
                    reader=self._reader,
                    settle_s=settle_s,
                )
            except OSError as exc:
                why = f"{record.path} cannot be read ({exc.strerror or exc})"
                self._events.emit(KnowledgeProgress(record.path, 0, 0, 0, 0, "", "failed", why))
                continue
            except Exception as exc:  # the index failed (disk full, ...): say so, go on
                log.warning("indexing %s failed", record.path, exc_info=True)
                self._events.emit(
                    KnowledgeProgress(record.path, 0, 0, 0, 0, "", "failed", str(exc))
                )
                continue
            await self._finished(record, result)

    async def _finished(self, record: FolderRecord, result: SyncResult) -> None:
        if result.unsettled and not self._closed:
            if (waiting := self._settling.pop(record.id, None)) is not None:
                waiting.cancel()
            self._settling[record.id] = asyncio.get_running_loop().call_later(
                SETTLE_S + 0.1, lambda: self._schedule(record.id, at_once=False)
            )
        if result.folders and result.folders != self._walked.get(record.id):
            self._walked[record.id] = result.folders
            self._restart_watcher()
        if not result.cancelled:
            await self._index.aset_synced(record.id, time.time())
        await self.folders()
        state: Literal["cancelled", "done"] = "cancelled" if result.cancelled else "done"
        done = next((f for f in self._folders if f.id == record.id), record)
        self._events.emit(
            KnowledgeProgress(
                record.path, done.files, done.files, done.bytes, done.bytes, "", state
            )
        )
        self._events.emit(KnowledgeChanged(record.path))

    # Meaning ---------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder | None:
        """The model that gives passages vectors, if one is chosen."""
        return self._embedder

    def use_embedder(
        self, embedder: Embedder | None, spec: str = "", *, resync: bool = True
    ) -> None:
        """Search by meaning with ``embedder`` too (``None``: by words alone). Vectors of
        another model are dropped and every folder is synced (unless not ``resync``), which
        makes them again."""
        self._embedder, self.embedding_spec, self._embed_problem = embedder, spec, None
        if embedder is not None:
            self._index.use_embedding_model(embedder.name)
            for record in self._folders if resync else ():
                with contextlib.suppress(RuntimeError):  # no loop yet: start() syncs them
                    self._schedule(record.id)
        self._events.emit(KnowledgeChanged(""))

    def meaning(self) -> tuple[Embedder, str] | None:
        """The embedding model search by meaning uses now, with its setting (for its
        :func:`~app.knowledge.ranking.meaning_floor`); ``None`` when search is by words alone
        (none chosen, or it failed). Memories are searched by meaning with it too."""
        if self._embedder is None or self._embed_problem:
            return None
        return self._embedder, self.embedding_spec

    def search_mode(self) -> str:
        """How searching works now, in one line: ``Search: words (BM25)`` or ``Search:
        words and meaning (MODEL)``, with why meaning is not used when it failed."""
        if self._embedder is None:
            return "Search: words (BM25)"
        if self._embed_problem:
            return f"Search: words (BM25); meaning is off: {self._embed_problem}"
        return f"Search: words and meaning ({self._embedder.name})"

    @property
    def vector_note(self) -> str | None:
        """How vectors are compared, when it is not by sqlite-vec (and why not)."""
        why = self._index.vectors.why_not
        if self._embedder is None or why is None:
            return None
        return f"Vectors are compared by a scan in memory, not by sqlite-vec: {why}."

    def _vectors_hook(self, record: FolderRecord) -> Callable[[str | None], None] | None:
        """What gives a folder's passages their vectors as a sync saves them (in its thread);
        the passages left at the end of a sync (all of them, after another model was chosen)
        are told as progress."""
        embedder = self._embedder
        if embedder is None:
            return None
        loop = asyncio.get_running_loop()

        def told(done: int, total: int) -> None:
            event = KnowledgeProgress(
                record.path, 0, 0, 0, 0, "", passages_done=done, passages_total=total
            )
            loop.call_soon_threadsafe(self._events.emit, event)

        def after_file(rel: str | None) -> None:
            if self._embed_problem or embedder is not self._embedder:
                return
            total = self._index.missing_count(record.id) if rel is None else 0
            progress = (lambda done: told(done, total)) if total else None
            try:
                embed_missing(self._index, embedder, record.id, rel, self._cancel, progress)
            except Exception as exc:  # a missing or broken model: words alone, said why
                log.warning("making vectors with %s failed", embedder.name, exc_info=True)
                self._embed_problem = str(exc) or type(exc).__name__

        return after_file

    async def _query_vector(self, query: str) -> list[float] | None:
        embedder = self._embedder
        if embedder is None or self._embed_problem:
            return None
        if not await self._index.avector_count():
            return None
        try:
            vectors = await asyncio.to_thread(embedder.embed, [query])
        except Exception as exc:
            log.warning("the query's vector failed", exc_info=True)
            self._embed_problem = str(exc) or type(exc).__name__
            self._events.emit(KnowledgeChanged(""))
            return None
        return vectors[0] if vectors else None

    # Watching --------------------------------------------------------------------------

    def _restart_watcher(self) -> None:
        """Watch the folders as they are now. The watcher it replaces runs on for a moment,
        so nothing that changes while the new one sets itself up goes unseen."""
        if not self._watching or self._closed:
            return
        loop = asyncio.get_running_loop()
        for _, stop in self._watchers:
            loop.call_later(_OVERLAP_S, stop.set)
        self._watchers = [(t, s) for t, s in self._watchers if not t.done()]
        paths = [
            os.path.normpath(os.path.join(f.path, inner))
            for f in self._folders
            for inner in self._walked.get(f.id, (".",))
        ]
        paths = [p for p in dict.fromkeys(paths) if os.path.isdir(p)]
        if not paths:
            return
        stop = asyncio.Event()
        self._watchers.append((loop.create_task(self._watch(paths, stop)), stop))

    async def _watch(self, paths: list[str], stop: asyncio.Event) -> None:
        import watchfiles

        try:
            async for changes in watchfiles.awatch(
                *paths,
                debounce=300,
                step=50,
                stop_event=stop,
                ignore_permission_denied=True,
                # each folder the walk went through, none of them through a link: watching
                # recursively would follow links out of the folder
                recursive=False,
            ):
                for _, changed in changes:
                    record = self._owner(changed)
                    if record is not None:
                        self._schedule(record.id, at_once=False)
        except (OSError, RuntimeError):  # a folder vanished: the next start watches again
            log.info("watching the knowledge folders stopped", exc_info=True)

    def _owner(self, changed: str) -> FolderRecord | None:
        path = Path(changed)
        owners = [f for f in self._folders if path.is_relative_to(f.path)]
        return max(owners, key=lambda f: len(f.path), default=None)

    # Searching -------------------------------------------------------------------------

    async def search(
        self,
        query: str,
        limit: int = 8,
        agent: str | None = None,
        *,
        floors: bool = True,
        meaning_floor: float | None = None,
    ) -> list[PassageHit]:
        """The passages that best match ``query``, best first: by words, and by meaning
        fused with them when an embedding model is chosen and passages have vectors. With
        ``floors``, none that is not close enough (:data:`ranking.WORDS_FLOOR`,
        :func:`ranking.meaning_floor`, or ``meaning_floor`` where given, as the bench's sweep
        gives it): a question the folders do not answer finds nothing."""
        words_floor = ranking.WORDS_FLOOR if floors else 0.0
        vector = await self._query_vector(query)
        if vector is not None:
            meaning = ranking.meaning_floor(self.embedding_spec) if floors else -1.0
            if floors and meaning_floor is not None:
                meaning = meaning_floor
            try:
                return await self._index.asearch_fused(
                    query, vector, limit, agent, (words_floor, meaning)
                )
            except Exception as exc:  # the vectors cannot be compared: words alone, said why
                log.warning("searching by meaning failed", exc_info=True)
                self._embed_problem = f"the vectors could not be compared ({exc})"
                self._events.emit(KnowledgeChanged(""))
        return await self._index.asearch(query, limit, agent, words_floor)

    async def sources(
        self, query: str, limit: int = 5, asker: RunContext | None = None
    ) -> list[dict[str, Any]]:
        """The best passages as numbered sources (what the model reads and cites); a passage
        holding under half as much of the question as the best one (its relevance) is left
        out, as it matched by chance. For the
        run ``asker`` only the folders of the agent asking (the delegate the run works for,
        else the thread's agent) and those of no agent are searched."""
        if not self._folders:
            return []
        agent = await asking_agent(asker, self._agents)
        hits = await self.search(query, limit, agent)
        best = max((hit.relevance for hit in hits), default=0.0)
        kept = [hit for hit in hits if hit.relevance >= best / 2]
        return [source_of(hit, n) for n, hit in enumerate(kept, 1)]

    def tools(self) -> list[Tool[..., Any]]:
        """``search_knowledge`` when a folder is set up, else nothing."""
        if not self._folders:
            return []
        if self._tool is None:
            self._tool = search_knowledge_tool(self.sources)
        return [self._tool]

    async def aclose(self) -> None:
        """Stop indexing (what was read is kept), the reader's child and watching, and close
        the index."""
        self._closed = True
        self.cancel()
        for waiting in self._settling.values():
            waiting.cancel()
        for _, stop in self._watchers:
            stop.set()
        for task in [self._runner, *(t for t, _ in self._watchers)]:
            if task is not None and not task.done():
                with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(task), 10)
        await asyncio.to_thread(self._reader.close)
        await asyncio.to_thread(self._index.close)
