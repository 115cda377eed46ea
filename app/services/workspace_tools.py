"""The tools a window's threads may use: the built-in set, set up from the user's settings, and
the running MCP servers' tools (from :class:`~app.services.mcp.service.McpService`), with each
thread's own choice of which are on.

The window reaches this through ``workspace.tools`` (a :class:`WorkspaceTools`): it lists the
tools for the composer's menu, keeps each thread's choice, and changes granted folders and the
network policy.

A tool that cannot work now (:meth:`WorkspaceTools.unavailable`: a file tool while no folder is
shared, a web tool offline, an MCP tool whose server is off or stopped) is listed with why and
what fixes it, but no run is offered it until it can work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from app.core.errors import UserError
from app.core.netgate import GATE
from app.core.state import ContentBlock
from app.core.tools import Tool, ToolError
from app.services.mcp.service import McpService, ServerInfo
from app.services.settings.store import SettingsStore
from app.services.tool_choice import ThreadToolChoices
from app.services.tool_entry import BUILTIN_GROUP, ToolEntry, ToolFix, Unavailable, first_line
from app.store import Store
from app.tools.builtin import BUILTIN_TOOLS, builtin_tools, permissions_of
from app.tools.knowledge import KNOWLEDGE_TOOL

__all__ = [
    "BUILTIN_GROUP",
    "FILE_TOOLS",
    "WEB_TOOLS",
    "ServerInfo",
    "ToolEntry",
    "ToolFix",
    "Unavailable",
    "WorkspaceTools",
    "ask_first_tools",
]

FILE_TOOLS = frozenset({"list_directory", "read_file", "search_files", "write_file"})
"""The built-in tools that work only inside a folder shared with Parley."""
WEB_TOOLS = frozenset({"fetch_url", "http_request"})
"""The built-in tools that reach other computers."""

NO_FOLDER = Unavailable("no folder is shared with Parley", ToolFix.SHARE_FOLDER)
OFFLINE = Unavailable("Parley is offline, so no web address can be reached", ToolFix.GO_ONLINE)


def ask_first_tools() -> list[Tool[..., Any]]:
    """The time and two text-file tools that reach any path and ask before every call: what
    ``parley chat --tools`` offers (a window's threads get :meth:`WorkspaceTools.builtin`,
    scoped by the settings instead). A run grants what :meth:`WorkspaceTools.permissions_of`
    says they need."""
    return list(BUILTIN_TOOLS)


class WorkspaceTools:
    """The window's tools; see the module docstring."""

    def __init__(
        self,
        data_dir: Path,
        store: Store,
        *,
        settings: SettingsStore,
        mcp: McpService,
        extra: Callable[[], list[Tool[..., Any]]] = list,
        offline: Callable[[], bool] = lambda: GATE.offline,
    ) -> None:
        self.data_dir = Path(data_dir)
        self._extra = extra
        self._store = store
        self._settings = settings
        self._mcp = mcp
        self._offline = offline
        self.choices = ThreadToolChoices(self.data_dir)
        self._builtin_key: tuple[Any, ...] | None = None
        self._builtin: list[Tool[..., Any]] = []

    # Built-in tools ---------------------------------------------------------------

    def builtin(self) -> list[Tool[..., Any]]:
        """The built-in tools as the current settings set them up (rebuilt when they change),
        and ``search_knowledge`` while a knowledge folder is set up."""
        settings = self._settings.current
        key = (tuple(settings.granted_folders), settings.allow_private_network)
        if key != self._builtin_key:
            self._builtin = builtin_tools(
                [Path(p) for p in settings.granted_folders],
                settings.allow_private_network,
                self._search,
                ingest=self._ingest,
            )
            self._builtin_key = key
        return [*self._builtin, *self._extra()]

    async def _search(self, text: str, limit: int) -> Sequence[Any]:
        return await self._store.search(text, limit=limit)

    async def _ingest(self, file: BinaryIO, name: str, media_type: str) -> Sequence[ContentBlock]:
        from app.media import OpenedFile
        from app.services.attachments.compose import attach

        result = await attach(self._store.store_media, [OpenedFile(file, name)])
        if not result.blocks:
            raise ToolError(result.problems[0] if result.problems else f"cannot read {name}")
        return result.blocks

    # What a thread offers ---------------------------------------------------------

    def unavailable(self, name: str) -> Unavailable | None:
        """Why the tool called ``name`` cannot work now, or ``None`` when it can (or is not
        known): a file tool while no folder is shared, a web tool while Parley is offline
        (and may not reach this computer either), an MCP tool whose server is off or stopped."""
        settings = self._settings.current
        if name in FILE_TOOLS and not settings.granted_folders:
            return NO_FOLDER
        if name in WEB_TOOLS and self._offline() and not settings.allow_private_network:
            return OFFLINE
        return self._mcp.unavailable(name)

    def known(self) -> list[Tool[..., Any]]:
        """Every tool there is now, also one that cannot work yet: built-in, then each started
        server's (what an agent may name)."""
        return [*self.builtin(), *self._mcp.tools()]

    def available(self) -> list[Tool[..., Any]]:
        """Every tool that can work now, built-in then each running server's: what a run is
        offered of the tools its thread or agent chose."""
        return [t for t in self.known() if self.unavailable(t.name) is None]

    def catalogue(self) -> list[ToolEntry]:
        """:meth:`known` as the composer's menu lists it, grouped, each tool that cannot work
        now with why."""
        entries = [
            ToolEntry(
                t.name, t.name, first_line(t.description), BUILTIN_GROUP, self.unavailable(t.name)
            )
            for t in self.builtin()
        ]
        return [*entries, *self._mcp.entries()]

    def enabled(self, thread_id: str) -> list[str]:
        """The tool names switched on in the thread (kept even while their server is down)."""
        return self.choices.enabled(thread_id)

    async def set_enabled(self, thread_id: str, names: Iterable[str]) -> list[str]:
        """Switch on exactly ``names`` in the thread; its next turn offers them."""
        chosen = list(names)
        return await asyncio.to_thread(self.choices.set_enabled, thread_id, chosen)

    # The automatic knowledge passages -----------------------------------------------

    @property
    def has_knowledge(self) -> bool:
        """Whether a knowledge folder is set up (``search_knowledge`` is on offer)."""
        return any(t.name == KNOWLEDGE_TOOL for t in self._extra())

    def auto_passages(self, thread_id: str) -> bool:
        """Whether the thread's questions get the best knowledge passages put before them
        when its model is not offered ``search_knowledge`` (on unless switched off)."""
        return self.choices.auto_passages(thread_id)

    async def set_auto_passages(self, thread_id: str, on: bool) -> bool:
        """Switch the thread's automatic passages on or off; its next turn follows."""
        return await asyncio.to_thread(self.choices.set_auto_passages, thread_id, on)

    def incognito(self, thread_id: str) -> bool:
        """Whether the thread is incognito: no memory is used or kept in it."""
        return self.choices.incognito(thread_id)

    async def set_incognito(self, thread_id: str, on: bool) -> bool:
        """Make the thread incognito or not; its next turn follows."""
        return await asyncio.to_thread(self.choices.set_incognito, thread_id, on)

    def for_thread(self, thread_id: str) -> list[Tool[..., Any]]:
        """The tools the thread's next turn offers the model: those it switched on that can
        work now."""
        on = set(self.choices.enabled(thread_id))
        return [t for t in self.available() if t.name in on]

    def named(self, names: Iterable[str]) -> list[Tool[..., Any]]:
        """The tools called ``names`` that can work now, in the order given (an agent's
        tools, as its run is offered them)."""
        by_name = {t.name: t for t in self.available()}
        return [by_name[n] for n in dict.fromkeys(names) if n in by_name]

    @staticmethod
    def permissions_of(tools: Sequence[Tool[..., Any]]) -> list[str]:
        """What a run grants so that ``tools`` may be called (approval still applies)."""
        return list(permissions_of(tools))

    def permissions(self, thread_id: str) -> list[str]:
        """What the thread's run grants so that the tools it switched on may be called
        (approval still applies)."""
        return list(permissions_of(self.for_thread(thread_id)))

    # Settings: folders and network -------------------------------------------------

    async def grant_folder(self, folder: str | Path) -> list[str]:
        """Let the file tools work inside ``folder``; returns the granted folders."""

        def check() -> str:
            path = Path(folder).expanduser()
            if not path.is_dir():
                raise UserError(f"{path} is not a folder; choose an existing folder to grant")
            return str(path.resolve())

        resolved = await asyncio.to_thread(check)
        settings = self._settings.current
        if resolved in settings.granted_folders:
            return list(settings.granted_folders)
        folders = [*settings.granted_folders, resolved]
        await self._settings.save(settings.model_copy(update={"granted_folders": folders}))
        return folders

    async def revoke_folder(self, folder: str) -> list[str]:
        """Stop the file tools working inside ``folder``; returns the granted folders."""
        settings = self._settings.current
        folders = [f for f in settings.granted_folders if f != folder]
        await self._settings.save(settings.model_copy(update={"granted_folders": folders}))
        return folders

    async def set_private_network(self, allowed: bool) -> None:
        """Let the web tools reach this computer and the local network, or not."""
        settings = self._settings.current
        await self._settings.save(settings.model_copy(update={"allow_private_network": allowed}))
