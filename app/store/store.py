"""``Store``: the one door to the thread database (threads, search, media, approvals)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from app.core.errors import UserError
from app.core.netgate import Connection
from app.core.state.agent_state import AgentState
from app.core.state.message import Message
from app.core.tools.argument_rules import ArgumentRule
from app.store import (
    _agents,
    _approvals,
    _argument_rules,
    _branches,
    _check,
    _export,
    _ledger,
    _media,
    _pages,
    _threads,
)
from app.store._export import ModelCheck
from app.store._own_schema import describe_strangers
from app.store._schema import BUILTIN_AGENT_ID
from app.store._threads import _UNSET
from app.store._worker import Worker
from app.store.checkpointer import SqliteCheckpointer
from app.store.errors import StoreError
from app.store.memories import MemoryStore
from app.store.models import (
    AgentRecord,
    AllowRule,
    ApprovalRecord,
    Branch,
    ImportedThread,
    MediaBlob,
    MessagePage,
    SearchHit,
    StoredArgumentRule,
    Thread,
    ThreadOverview,
)
from app.store.paths import database_path, resolve_data_dir
from app.store.schedules import ScheduleStore

__all__ = ["Store"]

log = logging.getLogger(__name__)


class Store:
    """The thread database: one SQLite file, one connection, one worker thread.

    Open it with :meth:`open` (or :meth:`open_data_dir`); every method is async and runs on
    the worker, so the event loop never waits on the disk. :attr:`checkpointer` saves graph
    steps into the same file. Close it with :meth:`close` / ``async with``. Errors caused by
    the file or the disk are :class:`app.store.errors.StoreError` subclasses.
    """

    def __init__(self, worker: Worker, *, remember_latest: int = 0) -> None:
        self._worker = worker
        self.checkpointer = SqliteCheckpointer(worker, remember_latest=remember_latest)
        """The checkpointer graphs use to save each step in this database."""
        self.memories = MemoryStore(worker)
        """The memories kept in this database (see :mod:`app.store.memories`)."""
        self.schedules = ScheduleStore(worker)
        """The schedules and their runs (see :mod:`app.store.schedules`)."""

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        max_size_bytes: int | None = None,
        reading_is_enough: bool = False,
        remember_latest: int = 0,
    ) -> Store:
        """Open (creating and migrating if needed) the database file at ``path``.

        Blocks while opening; raises a :class:`app.store.errors.StoreError` that names the
        file when it cannot be used (corrupt, newer schema, read-only folder, ...).
        ``max_size_bytes`` caps the file size (writes beyond fail with ``StoreFullError``).
        With ``reading_is_enough`` an existing file that cannot be written (read-only folder
        or disk, full disk) opens for reading: :attr:`read_only` says why, and every write
        raises that error. ``remember_latest`` is how many threads' latest messages the
        checkpointer keeps in memory once written or read (see :mod:`app.store._head_cache`);
        with 0 every read parses the file.
        """
        return cls(
            Worker(
                Path(path).absolute(),
                max_size_bytes=max_size_bytes,
                reading_is_enough=reading_is_enough,
            ),
            remember_latest=remember_latest,
        )

    @classmethod
    def open_read_only(cls, path: str | os.PathLike[str]) -> Store:
        """Open the database file at ``path`` for reading only (no migration, no writes):
        for exporting what can still be read from a copy of a damaged database."""
        return cls(Worker(Path(path).absolute(), read_only=True))

    @classmethod
    def open_data_dir(
        cls, cli_value: str | os.PathLike[str] | None = None, *, reading_is_enough: bool = False
    ) -> Store:
        """Open the database in the data directory chosen by ``--data-dir`` (``cli_value``),
        ``PARLEY_DATA_DIR`` or the platform default."""
        return cls.open(
            database_path(resolve_data_dir(cli_value)), reading_is_enough=reading_is_enough
        )

    @property
    def read_only(self) -> StoreError | None:
        """Why this store was opened for reading only, or ``None`` when it can save."""
        return self._worker.read_only

    @property
    def removed_notice(self) -> str | None:
        """What was removed from the file when it was opened (triggers and views Parley does
        not make, which never ran), in sentences for a person; ``None`` when nothing was."""
        removed = self._worker.removed
        if not removed:
            return None
        return (
            f"The thread database held {describe_strangers(removed)} that Parley does not "
            f"make; {'it was' if len(removed) == 1 else 'they were'} removed before anything "
            f"ran. Check your rules in Settings > Rules."
        )

    @property
    def path(self) -> Path:
        """The database file."""
        return self._worker.path

    def close(self) -> None:
        """Finish pending work and close the file (idempotent)."""
        self._worker.close()

    async def aclose(self) -> None:
        """Close without blocking the event loop."""
        await asyncio.to_thread(self._worker.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def check(self) -> list[str]:
        """Look for damage: SQLite's own check, the search index, and every stored message,
        checkpoint and pending question read back. One sentence per problem; empty if sound."""
        return await self._worker.acall(_check.check)

    # Threads -------------------------------------------------------------------------

    async def create_thread(
        self,
        title: str = "",
        *,
        model: str | None = None,
        system_prompt: str | None = None,
        thread_id: str | None = None,
        agent_id: str = BUILTIN_AGENT_ID,
        origin: str = "",
    ) -> Thread:
        """Create an empty thread run by ``agent_id`` (the built-in "Parley" by default),
        started from ``origin`` (``api`` through the server)."""
        thread = await self._worker.acall(
            _threads.create, thread_id, title, model, system_prompt, agent_id, origin
        )
        log.info("created thread %s", thread.id)
        return thread

    async def get_thread(self, thread_id: str) -> Thread | None:
        """Return the thread, or ``None``."""
        return await self._worker.acall(_threads.get, thread_id)

    async def list_threads(
        self, *, limit: int = 50, offset: int = 0, archived: bool | None = False
    ) -> list[Thread]:
        """Return one page of threads, most recently updated first (``archived=None``: all)."""
        return await self._worker.acall(_threads.list_threads, limit, offset, archived)

    async def rename_thread(self, thread_id: str, title: str) -> Thread:
        """Give the thread a new title."""
        return await self._worker.acall(_threads.update, thread_id, title)

    async def update_thread(
        self,
        thread_id: str,
        *,
        model: Any = _UNSET,
        system_prompt: Any = _UNSET,
        archived: Any = _UNSET,
    ) -> Thread:
        """Change the thread's model, system prompt or archived flag (only those given)."""
        return await self._worker.acall(
            _threads.update, thread_id, _UNSET, model, system_prompt, archived
        )

    # Agents --------------------------------------------------------------------------

    async def list_agents(self) -> list[AgentRecord]:
        """Every agent: the built-in "Parley" first, then by name."""
        return await self._worker.acall(_agents.list_agents)

    async def get_agent(self, agent_id: str) -> AgentRecord | None:
        """The agent with ``agent_id``, or ``None``."""
        return await self._worker.acall(_agents.get, agent_id)

    async def find_agent(self, name: str) -> AgentRecord | None:
        """The agent called ``name`` in any case, or ``None``."""
        return await self._worker.acall(_agents.find, name)

    async def save_agent(self, record: AgentRecord) -> AgentRecord:
        """Add the agent (an empty ``id`` gets a new one) or change the one with its id."""
        return await self._worker.acall(_agents.save, record)

    async def remove_agent(self, agent_id: str) -> int:
        """Remove the agent; its threads go to "Parley". Returns how many moved."""
        return await self._worker.acall(_agents.remove, agent_id)

    async def set_thread_agent(self, thread_id: str, agent_id: str) -> Thread:
        """Run the thread's next turns with ``agent_id``."""
        return await self._worker.acall(_agents.set_thread_agent, thread_id, agent_id)

    async def agent_thread_counts(self) -> dict[str, int]:
        """How many threads each agent runs, by agent id."""
        return await self._worker.acall(_agents.thread_counts)

    async def read_messages(
        self, thread_id: str, *, before: int | None = None, limit: int = 100
    ) -> MessagePage:
        """Return one page of the thread's current messages: the newest ``limit`` before
        position ``before`` (the very newest when ``None``), oldest first."""
        return await self._worker.acall(_pages.read_page, thread_id, before, limit)

    async def thread_overviews(self, thread_ids: list[str]) -> dict[str, ThreadOverview]:
        """The last message's line and the saved run status of each thread."""
        return await self._worker.acall(_pages.overviews, list(thread_ids))

    async def delete_thread(self, thread_id: str) -> None:
        """Delete the thread and everything in it; its media go unless another thread uses
        them."""
        await self._worker.acall(_threads.delete, thread_id)
        log.info("deleted thread %s", thread_id)

    async def fork_thread(
        self,
        thread_id: str,
        *,
        checkpoint_id: str | None = None,
        at_message: str | int | None = None,
        title: str | None = None,
        state_cls: type[AgentState] = AgentState,
    ) -> Thread:
        """Branch the conversation: a new thread whose first checkpoint is the given
        checkpoint's state (the latest by default), cut after ``at_message`` if given."""
        return await self._worker.acall(
            _threads.fork, thread_id, state_cls, checkpoint_id, at_message, title
        )

    async def keep_branch(self, thread_id: str, message_id: str | int) -> None:
        """Keep the thread's path from ``message_id`` on as an alternative of that message,
        before a regenerate or an edit replaces it (see :mod:`app.store._branches`)."""
        await self._worker.acall(_branches.keep, thread_id, message_id)

    async def branches(self, thread_id: str) -> list[Branch]:
        """Every alternative of the thread's messages, depth first, numbered from 1."""
        return await self._worker.acall(_branches.tree, thread_id)

    async def switch_branch(
        self,
        thread_id: str,
        message_id: str | int,
        index: int,
        *,
        state_cls: type[AgentState] = AgentState,
    ) -> bool:
        """Show alternative ``index`` (from 1) in place of the shown one that begins with
        ``message_id``, saved as the thread's next checkpoint; ``False`` when it is shown."""
        return await self._worker.acall(
            _branches.switch,
            thread_id,
            message_id,
            index,
            state_cls,
            self.checkpointer.head_cache,
        )

    async def open_branch(
        self, thread_id: str, number: int, *, state_cls: type[AgentState] = AgentState
    ) -> bool:
        """Show branch ``number`` (as :meth:`branches` numbers them) where it was left, saved
        as the thread's next checkpoint; ``False`` when it is on the path shown."""
        return await self._worker.acall(
            _branches.open_number, thread_id, number, state_cls, self.checkpointer.head_cache
        )

    async def rename_branch(self, thread_id: str, number: int, name: str) -> None:
        """Give branch ``number`` a name (blank: none)."""
        await self._worker.acall(_branches.rename, thread_id, number, name)

    async def delete_branch(self, thread_id: str, number: int) -> list[tuple[Any, ...]]:
        """Take branch ``number`` and the branches inside it out of the tree; returns what
        :meth:`restore_branches` puts back. The branch shown is refused."""
        return await self._worker.acall(_branches.delete, thread_id, number)

    async def restore_branches(self, thread_id: str, rows: list[tuple[Any, ...]]) -> None:
        """Put back the branches :meth:`delete_branch` took out."""
        await self._worker.acall(_branches.restore, thread_id, rows)

    async def branch_path(
        self, thread_id: str, number: int, *, state_cls: type[AgentState] = AgentState
    ) -> list[Message]:
        """The messages of branch ``number`` (as :meth:`branches` numbers them)."""
        return await self._worker.acall(_branches.path_of, thread_id, number, state_cls)

    async def search(
        self,
        text: str,
        *,
        limit: int = 50,
        thread_id: str | None = None,
        include_archived: bool = False,
        marks: tuple[str, str] = ("[", "]"),
    ) -> list[SearchHit]:
        """Find messages containing every word of ``text`` (the last word as a prefix), best
        first, each with a snippet whose matches are wrapped in ``marks``."""
        return await self._worker.acall(
            _threads.search, text, limit, thread_id, include_archived, marks
        )

    # Export / import -----------------------------------------------------------------

    async def export_json(
        self, thread_id: str, *, state_cls: type[AgentState] = AgentState
    ) -> bytes:
        """Return the thread (settings, latest state, media) as JSON for :meth:`import_json`."""
        return await self._worker.acall(_export.export_json, thread_id, state_cls)

    async def export_markdown(
        self, thread_id: str, *, state_cls: type[AgentState] = AgentState
    ) -> str:
        """Return the thread as a Markdown document."""
        return await self._worker.acall(_export.export_markdown, thread_id, state_cls)

    async def export_branch_markdown(
        self, thread_id: str, number: int, *, state_cls: type[AgentState] = AgentState
    ) -> str:
        """Return branch ``number`` of the thread (as :meth:`branches` numbers them) as a
        Markdown document."""
        return await self._worker.acall(
            _export.export_branch_markdown, thread_id, number, state_cls
        )

    async def import_json(
        self,
        data: bytes | str,
        *,
        state_cls: type[AgentState] = AgentState,
        check_model: ModelCheck | None = None,
    ) -> ImportedThread:
        """Create a new thread from an exported JSON document. It keeps only the media the
        export carries and the model ``check_model`` allows; its ``notes`` say what was left
        out. ``check_model`` runs on the store's thread, so it must not block or await."""
        return await self._worker.acall(_export.import_json, data, state_cls, check_model)

    # Media ---------------------------------------------------------------------------

    async def store_media(
        self, data: bytes, mime_type: str, *, thread_id: str | None = None
    ) -> str:
        """Store ``data`` once (content-addressed) and return its SHA-256 hex digest; link it
        to ``thread_id`` when given (messages referencing it link it too)."""
        return await self._worker.acall(_media.store, data, mime_type, thread_id)

    async def link_media(self, thread_id: str, sha256: str) -> None:
        """Record that the thread uses the stored media ``sha256``."""
        await self._worker.acall(_media.link, thread_id, sha256)

    async def get_media(self, sha256: str) -> MediaBlob | None:
        """Return the stored media, or ``None``."""
        return await self._worker.acall(_media.get, sha256)

    def read_media(self, sha256: str) -> bytes:
        """The stored media's bytes, waiting for them (for the providers' synchronous media
        loaders; use :meth:`get_media` in coroutines that can await)."""
        blob = self._worker.call(_media.get, sha256)
        if blob is None:
            raise UserError(f"no media with SHA-256 {sha256} is stored")
        return blob.data

    # The network ledger ---------------------------------------------------------------

    async def record_connections(self, connections: Sequence[Connection]) -> None:
        """Append connections the network gate saw to the ledger (old rows are dropped)."""
        if connections:
            await self._worker.acall(_ledger.record_connections, list(connections))

    async def list_connections(
        self, *, limit: int = 200, since: float | None = None
    ) -> list[Connection]:
        """The ledger's newest ``limit`` connections, newest first."""
        return await self._worker.acall(_ledger.list_connections, limit, since)

    # Approvals -----------------------------------------------------------------------

    async def record_approval(
        self,
        *,
        thread_id: str | None,
        tool: str,
        args_fingerprint: str,
        decision: str,
        scope: str = "once",
        reason: str | None = None,
        at: float | None = None,
        rule: str | None = None,
    ) -> ApprovalRecord:
        """Append a decision to the audit log (compute the fingerprint with
        :func:`app.store.fingerprint_args`; the arguments themselves are never stored);
        ``rule`` names the rule that allowed the call or that the decision made."""
        return await self._worker.acall(
            _approvals.record, thread_id, tool, args_fingerprint, decision, scope, reason, at, rule
        )

    async def list_approvals(
        self, *, thread_id: str | None = None, tool: str | None = None, limit: int = 200
    ) -> list[ApprovalRecord]:
        """Return audit log entries, newest first."""
        return await self._worker.acall(_approvals.list_records, thread_id, tool, limit)

    async def allow_always(
        self, tool: str, *, thread_id: str | None = None, agent: str = ""
    ) -> AllowRule:
        """Add an "always allow" rule for ``tool`` in ``thread_id`` when ``agent`` calls it
        (``""``: the thread's own agent), or everywhere for every agent if ``thread_id`` is
        ``None``."""
        return await self._worker.acall(_approvals.add_rule, tool, thread_id, agent)

    async def list_allow_rules(
        self, *, thread_id: str | None = None, include_global: bool = True
    ) -> list[AllowRule]:
        """Return the "always allow" rules (all, or those that apply to ``thread_id``)."""
        return await self._worker.acall(_approvals.list_rules, thread_id, include_global)

    async def revoke_allow_rule(
        self, tool: str, *, thread_id: str | None = None, agent: str = ""
    ) -> bool:
        """Remove a rule; return whether it existed."""
        return await self._worker.acall(_approvals.revoke, tool, thread_id, agent)

    async def is_allowed(self, tool: str, *, thread_id: str | None = None, agent: str = "") -> bool:
        """Whether ``tool`` runs without asking in ``thread_id`` when ``agent`` (a delegate;
        ``""``: the thread's own agent) calls it."""
        return await self._worker.acall(_approvals.is_allowed, tool, thread_id, agent)

    async def add_argument_rule(self, rule: ArgumentRule) -> StoredArgumentRule:
        """Keep an argument-scoped "always allow" rule (once)."""
        return await self._worker.acall(_argument_rules.add, rule)

    async def list_argument_rules(
        self, *, tool: str | None = None, agent_id: str | None = None
    ) -> list[StoredArgumentRule]:
        """The argument-scoped rules kept (all, or those of ``tool``, or of ``agent_id``)."""
        return await self._worker.acall(_argument_rules.list_rules, tool, agent_id)

    async def revoke_argument_rule(self, rule_id: int) -> bool:
        """Remove an argument-scoped rule by its id; return whether it existed."""
        return await self._worker.acall(_argument_rules.revoke, rule_id)
