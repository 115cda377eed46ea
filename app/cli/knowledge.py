"""``parley knowledge add FOLDER [--agent NAME]``, ``list``, ``remove FOLDER``,
``search "QUERY"``, ``meaning MODEL`` and ``reindex [FOLDER]``: knowledge folders from a
terminal, through the same service as the window. Indexing shows its progress on stderr;
Ctrl+C stops it after the file being read and keeps what was read."""

from __future__ import annotations

import argparse
import asyncio
import datetime
from typing import Any, TextIO

from app.text.sizes import human_size

__all__ = ["add_parsers", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``knowledge`` and its actions to the ``parley`` subcommands."""
    knowledge = sub.add_parser(
        "knowledge", parents=[common], help="folders of documents the models can search and cite"
    )
    actions = knowledge.add_subparsers(dest="knowledge_action", metavar="ACTION")
    add = actions.add_parser("add", parents=[common], help="add a folder and index it")
    add.add_argument("folder", metavar="FOLDER")
    add.add_argument("--agent", metavar="NAME", help="only this agent's threads search it")
    actions.add_parser("list", parents=[common], help="the folders, their files and problems")
    remove = actions.add_parser(
        "remove", parents=[common], help="forget a folder (its files are not touched)"
    )
    remove.add_argument("folder", metavar="FOLDER")
    search = actions.add_parser("search", parents=[common], help="the passages that match")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--limit", type=int, default=5, help="how many passages (default 5)")
    meaning = actions.add_parser(
        "meaning", parents=[common], help="search by meaning too, with this embedding model"
    )
    meaning.add_argument(
        "model", metavar="MODEL", help="none, bundled, a downloaded model's name or a .gguf file"
    )
    reindex = actions.add_parser(
        "reindex", parents=[common], help="bring every folder (or FOLDER) up to date"
    )
    reindex.add_argument("folder", metavar="FOLDER", nargs="?")


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``knowledge``; ``None`` when it is another command."""
    if args.command != "knowledge":
        return None
    action = getattr(args, "knowledge_action", None) or "list"
    return asyncio.run(_run(action, args, out, err))


async def _run(action: str, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.agents.service import agent_names
    from app.services.bus import EventBus
    from app.services.events import KnowledgeProgress, WorkspaceEvent
    from app.services.knowledge import KnowledgeService
    from app.services.locations import Locations

    bus = EventBus()
    progress = _Progress(err)

    def on_event(event: WorkspaceEvent) -> None:
        if isinstance(event, KnowledgeProgress):
            progress.show(event)

    bus.subscribe(on_event)
    names = await agent_names(args.data_dir)
    owner = _agent_named(names, args.agent) if action == "add" and args.agent else None
    data_dir = Locations.resolve(args.data_dir).data
    service = await KnowledgeService.open(data_dir, bus, watch=False)
    try:
        await _use_embedding(service, data_dir)
        meaning = service.embedder is not None
        if action == "add":
            path = await service.add_folder(args.folder, owner)
            if owner is not None:
                await service.set_owner(owner, [path, *service.of_agent(owner)])
            await _wait(service, progress)
            added = [f for f in await service.folders() if f.path == path]
            _print_folders(out, added, names, meaning)
        elif action == "remove":
            if not await service.remove_folder(args.folder):
                err.write(f"parley: {args.folder} is not a knowledge folder\n")
                return 1
            out.write(f"Removed {args.folder} (its files were not touched).\n")
        elif action == "search":
            return await _search(service, args.query, args.limit, out)
        elif action == "meaning":
            await _choose_meaning(service, data_dir, args.model, out)
        elif action == "reindex":
            await service.reindex(args.folder)
            await _wait(service, progress)
            _print_folders(out, await service.folders(), names, meaning)
        else:
            out.write(service.search_mode() + "\n")
            if service.vector_note:
                out.write(f"    {service.vector_note}\n")
            _print_folders(out, await service.folders(), names, meaning)
    finally:
        await service.aclose()
    return 0


async def _use_embedding(service: Any, data_dir: Any) -> None:
    """Search (and index) by meaning too when the settings name an embedding model."""
    from app.services.knowledge.embedders import embedder_for
    from app.services.settings import load_settings

    spec = (await asyncio.to_thread(load_settings, data_dir)).knowledge_embedding
    if spec:
        embedder = await asyncio.to_thread(embedder_for, spec)
        service.use_embedder(embedder, spec, resync=False)  # add and reindex sync what they name


async def _choose_meaning(service: Any, data_dir: Any, model: str, out: TextIO) -> None:
    """Save the embedding model named, and say which search is in use now."""
    from app.services.knowledge.embedders import embedder_for, spec_named
    from app.services.models.catalogue import ModelLibrary
    from app.services.settings import load_settings, save_settings

    spec = await asyncio.to_thread(spec_named, model, ModelLibrary(data_dir))
    settings = await asyncio.to_thread(load_settings, data_dir)
    await asyncio.to_thread(
        save_settings, data_dir, settings.model_copy(update={"knowledge_embedding": spec})
    )
    service.use_embedder(await asyncio.to_thread(embedder_for, spec), spec, resync=False)
    out.write(service.search_mode() + "\n")
    if spec and service.has_folders:
        out.write("Passages get their vectors at the next sync: parley knowledge reindex\n")


async def _wait(service: Any, progress: _Progress) -> None:
    try:
        await service.wait_idle()
    except asyncio.CancelledError:
        service.cancel()
        raise
    except KeyboardInterrupt:
        service.cancel()
        await service.wait_idle()
    progress.end()


async def _search(service: Any, query: str, limit: int, out: TextIO) -> int:
    sources = await service.sources(query, max(1, min(limit, 20)))
    if not sources:
        out.write(
            f"Nothing close enough to {query!r} in the knowledge folders: no passage holds "
            "enough of its words (or its meaning). Try other words, or the words the "
            "documents use.\n"
        )
        return 1
    for source in sources:
        out.write(f"[{source['source']}] {source['title']}  {source['url']}\n")
        snippet = " ".join(source["text"].split())
        out.write(f"    {snippet[:300]}{'…' if len(snippet) > 300 else ''}\n")
    return 0


def _agent_named(names: dict[str, str], name: str) -> str:
    """The id of the agent called ``name`` (any case); :class:`UserError` when none is."""
    import unicodedata

    from app.core.errors import UserError

    def key(text: str) -> str:
        return unicodedata.normalize("NFKC", text).casefold().strip()

    for agent_id, known in names.items():
        if key(known) == key(name):
            return agent_id
    raise UserError(f"there is no agent called {name.strip()!r}; see parley agents list")


def _print_folders(
    out: TextIO, folders: list[Any], names: dict[str, str], meaning: bool = False
) -> None:
    if not folders:
        out.write("No knowledge folders yet; add one with: parley knowledge add FOLDER\n")
        return
    for folder in folders:
        synced = (
            datetime.datetime.fromtimestamp(folder.last_sync).strftime("%Y-%m-%d %H:%M")
            if folder.last_sync
            else "not finished yet"
        )
        who = f", for agent {names.get(folder.agent, 'no longer here')}" if folder.agent else ""
        with_meaning = ""
        if meaning and folder.vectors < folder.passages:
            with_meaning = f" ({folder.vectors} with meaning so far)"
        out.write(
            f"{folder.path}{who}\n    {folder.files} files, {human_size(folder.bytes)}, "
            f"{folder.passages} passages{with_meaning}; last sync {synced}\n"
        )
        if folder.skipped:
            out.write(f"    {len(folder.skipped)} files could not be read:\n")
            for skipped in folder.skipped:
                out.write(f"      {skipped.rel}: {skipped.reason}\n")


class _Progress:
    """One line on stderr: a rewritten line on a terminal, else a line per folder done."""

    def __init__(self, err: TextIO) -> None:
        self._err = err
        self._tty = err.isatty()
        self._open = False

    def show(self, event: Any) -> None:
        if event.state == "failed":
            self.end()
            self._err.write(f"parley: {event.error}\n")
            return
        if event.state == "cancelled":
            self.end()
            self._err.write(f"Stopped indexing {event.folder}; what was read is kept.\n")
            return
        if event.state == "done":
            self.end()
            return
        if not self._tty:
            return
        line = (
            f"Indexing {event.files_done}/{event.files_total} files, "
            f"{human_size(event.bytes_done)} of {human_size(event.bytes_total)}: {event.current}"
        )
        if event.passages_total:
            line = f"Finding the meaning of {event.passages_done}/{event.passages_total} passages"
        write_control = getattr(self._err, "write_control", self._err.write)
        write_control("\r\x1b[K")
        self._err.write(line[:200])
        self._open = True

    def end(self) -> None:
        if self._open:
            self._err.write("\n")
            self._open = False
