"""``ThreadService``: the threads of one store as the sidebar and the terminal see them — list,
get, create, search, rename, delete, each thread's model and system prompt, branches, export,
import, pages of messages, the saved state and deleting one message.

Every method is async and runs the store's work on its worker thread. A change is told on the
bus as :class:`~app.services.events.ThreadsChanged` (and ``MessageRemoved`` for a message).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from app.core.errors import ParleyError, UserError
from app.core.state import AgentState, Message
from app.core.userinfo import has_userinfo
from app.services.bus import EventBus
from app.services.events import MessageRemoved, ThreadsChanged
from app.services.models.downloads import ModelDownloads
from app.services.settings.store import SettingsStore
from app.services.tool_choice import ThreadToolChoices
from app.store import (
    BUILTIN_AGENT_ID,
    Branch,
    ImportedThread,
    MessagePage,
    SearchHit,
    Store,
    Thread,
)

__all__ = [
    "Branch",
    "MessagePage",
    "RunControl",
    "SearchHit",
    "Thread",
    "ThreadService",
    "ThreadSummary",
    "require_thread",
    "saved_branches",
    "saved_path",
    "saved_threads",
    "search_saved",
    "title_of",
]


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """A thread as the sidebar shows it."""

    thread: Thread
    last_line: str
    status: Literal["idle", "running", "waiting", "cut_off"]


def title_of(text: str, width: int = 60) -> str:
    """A thread title made from the first message."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


async def require_thread(store: Store, thread_id: str) -> Thread:
    """The thread; :class:`UserError` when there is none."""
    found = await store.get_thread(thread_id)
    if found is None:
        raise UserError(f"there is no thread {thread_id}")
    return found


async def saved_threads(data_dir: str | os.PathLike[str] | None) -> list[Thread]:
    """The latest page of saved threads, most recently active first, read from the database
    in ``data_dir`` (``--data-dir``, ``PARLEY_DATA_DIR`` or the user data directory) without
    a workspace and without writing: a read-only or full disk still lists them."""
    async with Store.open_data_dir(data_dir, reading_is_enough=True) as store:
        return await store.list_threads()


async def search_saved(data_dir: str | os.PathLike[str] | None, text: str) -> list[SearchHit]:
    """The messages in ``data_dir``'s threads that hold every word of ``text`` (the best
    first page), read as :func:`saved_threads` reads."""
    async with Store.open_data_dir(data_dir, reading_is_enough=True) as store:
        return await store.search(text)


async def saved_branches(
    data_dir: str | os.PathLike[str] | None, thread_id: str
) -> tuple[Thread, list[Branch]]:
    """The thread in ``data_dir`` and every version of its messages, depth first and
    numbered from 1 (read as :func:`saved_threads` reads)."""
    async with Store.open_data_dir(data_dir, reading_is_enough=True) as store:
        thread = await require_thread(store, thread_id)
        return thread, await store.branches(thread_id)


async def saved_path(
    data_dir: str | os.PathLike[str] | None, thread_id: str, number: int | None
) -> list[Message]:
    """The messages of branch ``number`` of the thread in ``data_dir`` (as
    :func:`saved_branches` numbers them), or of the path shown last when ``None``."""
    async with Store.open_data_dir(data_dir, reading_is_enough=True) as store:
        await require_thread(store, thread_id)
        if number is not None:
            return await store.branch_path(thread_id, number)
        latest = await store.checkpointer.aget(thread_id, AgentState)
        return list(latest.state.context) if latest else []


class RunControl(Protocol):
    """What the thread service asks of the runs (:class:`~app.services.runs.RunService`)."""

    def is_running(self, thread_id: str) -> bool:
        """Whether a turn is running on the thread now."""

    def refuse_if_busy(self, thread_id: str) -> None:
        """Raise when a turn is running on the thread."""

    async def stop_and_wait(self, thread_id: str) -> None:
        """Stop the thread's turn, if one runs, and wait a little for it to end."""


class ThreadService:
    """The threads of one store; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        events: EventBus,
        settings: SettingsStore,
        runs: RunControl,
        tool_choices: ThreadToolChoices,
        downloads: ModelDownloads,
    ) -> None:
        self._store = store
        self._events = events
        self._settings = settings
        self._runs = runs
        self._tool_choices = tool_choices
        self._downloads = downloads

    async def list_all(self, *, limit: int = 500) -> list[ThreadSummary]:
        """Threads, most recently active first, with their last line and run status."""
        threads = await self._store.list_threads(limit=limit)
        overviews = await self._store.thread_overviews([t.id for t in threads])
        out = []
        for t in threads:
            ov = overviews.get(t.id)
            status: Literal["idle", "running", "waiting", "cut_off"] = "idle"
            if self._runs.is_running(t.id):
                status = "running"
            elif t.pending_interrupts:
                status = "waiting"
            elif ov is not None and ov.run_status == "running":
                status = "cut_off"
            out.append(ThreadSummary(t, ov.last_line if ov else "", status))
        return out

    async def get(self, thread_id: str) -> Thread:
        """The thread; :class:`UserError` when there is none."""
        return await require_thread(self._store, thread_id)

    async def create(
        self,
        *,
        title: str = "",
        model: str | None = None,
        system_prompt: str | None = None,
        agent_id: str = BUILTIN_AGENT_ID,
        origin: str = "",
    ) -> Thread:
        """A new, empty thread on ``model`` (the default model when not given), run by the
        agent ``agent_id`` ("Parley", plain chat, when not given), started from ``origin``
        (``api`` through the server). A model whose address holds a password is refused
        (it would be saved with the thread)."""
        spec = model or self._settings.current.default_model
        if spec and has_userinfo(spec):
            from app.providers.spec import parse_spec

            parse_spec(spec)  # raises, saying where the password goes instead
        thread = await self._store.create_thread(
            title,
            model=spec,
            system_prompt=system_prompt,
            agent_id=agent_id,
            origin=origin,
        )
        self._events.emit(ThreadsChanged(thread.id))
        return thread

    async def rename(self, thread_id: str, title: str) -> Thread:
        """Give the thread a new title (blank titles are refused)."""
        title = " ".join(title.split())
        if not title:
            raise UserError("a thread needs a title")
        thread = await self._store.rename_thread(thread_id, title)
        self._events.emit(ThreadsChanged(thread_id))
        return thread

    async def delete(self, thread_id: str) -> None:
        """Delete the thread for good (stopping its run first)."""
        await self._runs.stop_and_wait(thread_id)
        await self._store.delete_thread(thread_id)
        await asyncio.to_thread(self._tool_choices.forget, thread_id)
        self._events.emit(ThreadsChanged(thread_id))

    async def set_model(self, thread_id: str, spec: str) -> Thread:
        """Run the thread's next turns on ``spec``."""
        from app.providers.spec import parse_spec

        parse_spec(spec)  # refuse a malformed spec before saving it
        thread = await self._store.update_thread(thread_id, model=spec)
        self._events.emit(ThreadsChanged(thread_id))
        return thread

    async def set_agent(self, thread_id: str, agent_id: str) -> Thread:
        """Run the thread's next turns with the agent ``agent_id``."""
        self._runs.refuse_if_busy(thread_id)
        thread = await self._store.set_thread_agent(thread_id, agent_id)
        self._events.emit(ThreadsChanged(thread_id))
        return thread

    async def set_system_prompt(self, thread_id: str, prompt: str | None) -> Thread:
        """The thread's own system prompt (``None`` or blank: the default)."""
        value = prompt if prompt and prompt.strip() else None
        return await self._store.update_thread(thread_id, system_prompt=value)

    async def search(self, text: str, *, limit: int = 50) -> list[SearchHit]:
        """Messages containing every word of ``text``; matches wrapped in ``\\x02``/``\\x03``."""
        if not text.strip():
            return []
        return await self._store.search(text, limit=limit, marks=("\x02", "\x03"))

    async def export(self, thread_id: str, fmt: Literal["markdown", "json"]) -> bytes:
        """The thread as a Markdown document or as JSON that :meth:`import_json` reads."""
        if fmt == "markdown":
            return (await self._store.export_markdown(thread_id)).encode()
        return await self._store.export_json(thread_id)

    async def export_branch(self, thread_id: str, number: int) -> bytes:
        """Branch ``number`` of the thread (as :meth:`branches` numbers them) as a Markdown
        document."""
        return (await self._store.export_branch_markdown(thread_id, number)).encode()

    async def import_json(self, data: bytes) -> ImportedThread:
        """A new thread from an exported JSON document. An export is a file from anywhere: the
        thread keeps only media whose bytes it carries and a model set up here (else the
        default model); ``notes`` on the result, and on the messages concerned, say what was
        left out and why."""
        from app.services.models.imported import imported_model_check

        try:
            installed = [c.spec for c in await self._downloads.choices() if c.available]
        except (OSError, ParleyError):  # an unreadable model list: only settings count
            installed = []
        check = imported_model_check(self._settings.current, installed)
        thread = await self._store.import_json(data, check_model=check)
        self._events.emit(ThreadsChanged(thread.id))
        return thread

    async def branches(self, thread_id: str) -> list[Branch]:
        """Every other version of the thread's messages (edited questions, regenerated
        answers), depth first and numbered from 1, each saying whether it is shown now."""
        await self.get(thread_id)
        return await self._store.branches(thread_id)

    async def switch_branch(self, thread_id: str, message_id: str, index: int) -> bool:
        """Show version ``index`` (from 1) of the message whose shown version begins with
        ``message_id``, and everything after it; the thread remembers it (it is saved as the
        thread's next step, so the path left keeps all it had). ``False``: shown already."""
        self._runs.refuse_if_busy(thread_id)
        switched = await self._store.switch_branch(thread_id, message_id, index)
        if switched:
            self._events.emit(ThreadsChanged(thread_id))
        return switched

    async def open_branch(self, thread_id: str, number: int) -> bool:
        """Show branch ``number`` (as :meth:`branches` numbers them) as it was left, and
        remember it; ``False`` when it is shown already."""
        self._runs.refuse_if_busy(thread_id)
        opened = await self._store.open_branch(thread_id, number)
        if opened:
            self._events.emit(ThreadsChanged(thread_id))
        return opened

    async def rename_branch(self, thread_id: str, number: int, name: str) -> None:
        """Name branch ``number`` (blank: no name)."""
        await self.get(thread_id)
        await self._store.rename_branch(thread_id, number, name)

    async def delete_branch(self, thread_id: str, number: int) -> Callable[[], Awaitable[None]]:
        """Take branch ``number`` (and the branches inside it) out of the thread's tree; its
        steps stay in the thread's history. Returns the Undo: awaiting it puts them back. The
        branch shown is refused."""
        await self.get(thread_id)
        rows = await self._store.delete_branch(thread_id, number)
        self._events.emit(ThreadsChanged(thread_id))

        async def undo() -> None:
            await self._store.restore_branches(thread_id, rows)
            self._events.emit(ThreadsChanged(thread_id))

        return undo

    async def branch_path(self, thread_id: str, number: int | None = None) -> list[Message]:
        """The messages of branch ``number`` (as :meth:`branches` numbers them), or of the
        path shown now when ``None``."""
        await self.get(thread_id)
        if number is None:
            state = await self.saved_state(thread_id)
            return list(state.context) if state else []
        return await self._store.branch_path(thread_id, number)

    async def read_messages(
        self, thread_id: str, *, before: int | None = None, limit: int = 100
    ) -> MessagePage:
        """A page of the thread's messages: the newest first, older pages with ``before``."""
        return await self._store.read_messages(thread_id, before=before, limit=limit)

    async def saved_state(self, thread_id: str) -> AgentState | None:
        """The thread's latest saved state (``None`` before its first turn)."""
        latest = await self._store.checkpointer.aget(thread_id, AgentState)
        return latest.state if latest else None

    async def delete_message(self, thread_id: str, message_id: str) -> None:
        """Remove one message from the thread (saved as a new step; runs nothing)."""
        from app.services.state_edits import save_edited_state

        self._runs.refuse_if_busy(thread_id)
        latest = await self._store.checkpointer.aget(thread_id, AgentState)
        if latest is None:
            raise UserError("this thread has nothing saved yet")
        context = [m for m in latest.state.context if str(m.message_id) != str(message_id)]
        if len(context) == len(latest.state.context):
            raise UserError("that message is no longer in the thread")
        state = latest.state.model_copy(update={"context": context})
        await save_edited_state(self._store, latest, state)
        self._events.emit(MessageRemoved(thread_id, message_id))
        self._events.emit(ThreadsChanged(thread_id))
