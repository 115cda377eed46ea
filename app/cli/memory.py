"""``parley memory``: add, list, edit, forget, search, export and import what agents remember
across threads, through the same service as the window."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.export_file import refuse_existing
from app.cli.stdin import confirm
from app.cli.text import as_text, printable

if TYPE_CHECKING:
    from app.services.memory import Memory, MemoryImport
    from app.services.workspace import Workspace

__all__ = ["add_parsers", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``memory`` and its actions to the ``parley`` subcommands."""
    memory = sub.add_parser("memory", parents=[common], help="what agents remember across threads")
    actions = memory.add_subparsers(
        dest="memory_action", metavar="{add,list,edit,forget,search,export,import}"
    )
    add = actions.add_parser("add", parents=[common], help="remember TEXT; prints its id")
    add.add_argument("text", metavar="TEXT")
    add.add_argument("--agent", metavar="NAME", help="for this agent only (default: everyone)")
    add.add_argument("--pin", action="store_true", help="put it before every model call")
    add.add_argument(
        "--local-only",
        action="store_true",
        help="never put it before a model on another computer",
    )
    listing = actions.add_parser("list", parents=[common], help="every memory, pinned first")
    listing.add_argument("--agent", metavar="NAME", help="this agent's and everyone's")
    listing.add_argument("--json", action="store_true", help="as JSON")
    edit = actions.add_parser("edit", parents=[common], help="give a memory a new text")
    edit.add_argument("id", metavar="ID")
    edit.add_argument("text", metavar="TEXT")
    forget = actions.add_parser("forget", parents=[common], help="forget a memory (no question)")
    forget.add_argument("id", metavar="ID")
    search = actions.add_parser("search", parents=[common], help="the memories holding QUERY")
    search.add_argument("query", metavar="QUERY")
    export = actions.add_parser(
        "export", parents=[common], help="write every memory to FILE (yours: local-only too)"
    )
    export.add_argument("file", metavar="FILE")
    export.add_argument("--force", action="store_true", help="replace FILE if it exists")
    imp = actions.add_parser("import", parents=[common], help="show a memory file, then add it")
    imp.add_argument("file", metavar="FILE")
    imp.add_argument("--yes", action="store_true", help="add them without asking")


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``memory``; ``None`` when it is another command."""
    if args.command != "memory":
        return None
    return asyncio.run(_run(args, out, err))


async def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.workspace import Workspace

    for name in ("text", "query", "agent", "id"):
        if isinstance(getattr(args, name, None), str):
            setattr(args, name, as_text(getattr(args, name)))
    action = getattr(args, "memory_action", None) or "list"
    workspace = await Workspace.open(args.data_dir)
    try:
        await workspace.agents.list()
        return await _ACTIONS[action](workspace, args, out, err)
    finally:
        await workspace.aclose()


async def _agent_id(ws: Workspace, name: str | None) -> str | None:
    return None if name is None else (await ws.agents.get(name)).id


def _scope(ws: Workspace, memory: Memory) -> str:
    return "about me" if memory.agent_id is None else ws.agents.named(memory.agent_id)


def _day(when: float) -> str:
    return datetime.datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M")


def _flags(memory: Memory) -> list[str]:
    return [f for f, on in (("pinned", memory.pinned), ("local only", memory.local_only)) if on]


def _lines(ws: Workspace, memory: Memory) -> str:
    flags = _flags(memory)
    source = (
        "added by you"
        if memory.thread_id is None
        else f"from thread {memory.thread_id}"
        + (f", message {memory.message_id}" if memory.message_id else "")
    )
    used = "never used" if memory.last_used_at is None else f"used {_day(memory.last_used_at)}"
    about = " · ".join([*flags, source, f"made {_day(memory.made_at)}", used])
    return f"{memory.short_id}  {_scope(ws, memory)}: {memory.text}\n    {about}\n"


def _print(ws: Workspace, memories: list[Memory], out: TextIO) -> None:
    encoding = getattr(out, "encoding", None)
    for memory in memories:
        out.write(printable(_lines(ws, memory), encoding))


async def _add(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    memory = await ws.memory.add(
        args.text,
        agent_id=await _agent_id(ws, args.agent),
        pinned=args.pin,
        local_only=args.local_only,
    )
    out.write(f"{memory.short_id}\n")
    return 0


def _as_json(ws: Workspace, memory: Memory) -> dict[str, Any]:
    source = None
    if memory.thread_id is not None:
        source = {"thread": memory.thread_id, "message": memory.message_id}
    return {
        "id": memory.id,
        "text": memory.text,
        "agent": None if memory.agent_id is None else ws.agents.named(memory.agent_id),
        "agent_id": memory.agent_id,
        "pinned": memory.pinned,
        "local_only": memory.local_only,
        "made_at": memory.made_at,
        "last_used_at": memory.last_used_at,
        "source": source,
    }


async def _list(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    agent_id = await _agent_id(ws, args.agent)
    memories = await ws.memory.list(agent_id, every=args.agent is None)
    if args.json:
        out.write(json.dumps([_as_json(ws, m) for m in memories], indent=2) + "\n")
    elif not memories:
        err.write("No memories yet: parley memory add TEXT keeps one.\n")
    else:
        _print(ws, memories, out)
    return 0


async def _edit(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    memory = await ws.memory.edit(args.id, args.text)
    err.write(f"changed memory {memory.short_id}\n")
    return 0


async def _forget(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    memory = await ws.memory.forget(args.id)
    err.write(f"forgot memory {memory.short_id}\n")
    return 0


async def _search(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    found = await ws.memory.search(args.query)
    if not found:
        near = " or is close to them in meaning" if ws.memory.meaning.on else ""
        err.write(f"No memory holds those words{near}.\n")
        return 1
    _print(ws, found, out)
    return 0


async def _export(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    target = Path(args.file)
    if refuse_existing(target, args.force, err):
        return 2
    try:
        count = await ws.memory.export_to(target)
    except OSError as exc:
        err.write(f"parley: could not write {target}: {exc.strerror or exc}; nothing was written\n")
        return 2
    err.write(f"exported {count} memor{'y' if count == 1 else 'ies'} to {target}\n")
    return 0


def _show_plan(ws: Workspace, plan: MemoryImport, out: TextIO) -> None:
    names = dict(plan.agent_names)
    encoding = getattr(out, "encoding", None)
    for memory in plan.memories:
        scope = "about me" if memory.agent_id is None else names.get(memory.agent_id, "?")
        flags = _flags(memory)
        extra = f"  ({', '.join(flags)})" if flags else ""
        out.write(printable(f"  {scope}: {memory.text}{extra}\n", encoding))
    if plan.already_here:
        n = plan.already_here
        out.write(f"{n} memor{'y is' if n == 1 else 'ies are'} here already and left out.\n")


async def _import(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.memory import MAX_FILE_BYTES

    source = Path(args.file)

    def read() -> bytes:
        with source.open("rb") as file:  # no more than the most a memory file may be
            return file.read(MAX_FILE_BYTES + 1)

    try:
        data = await asyncio.to_thread(read)
    except OSError as exc:
        err.write(f"parley: could not read {source}: {exc.strerror or exc}\n")
        return 2
    plan = await ws.memory.read_file(data)
    _show_plan(ws, plan, out)
    n = len(plan.memories)
    if not n:
        err.write("nothing to add\n")
        return 0
    question = "Add this memory? [y/N] " if n == 1 else f"Add these {n} memories? [y/N] "
    if not args.yes and not await confirm(question, err):
        err.write("nothing was added (--yes adds them without asking)\n")
        return 1
    kept = await ws.memory.import_memories(plan)
    err.write(f"added {len(kept)} memor{'y' if len(kept) == 1 else 'ies'}\n")
    return 0


_ACTIONS = {
    "add": _add,
    "list": _list,
    "edit": _edit,
    "forget": _forget,
    "search": _search,
    "export": _export,
    "import": _import,
}
