"""``parley threads`` (list or search the saved threads), ``parley threads branches ID`` (the
versions of its messages as a tree), ``parley threads show ID [--branch N]`` (one path),
``parley threads export ID [FILE]`` and ``parley threads import FILE``: move a thread between
data folders from a terminal, through the same workspace calls as the window's Export and
Import (and so with the same checks on what is read)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any, Literal, TextIO

from app.cli.export_file import refuse_existing, save_export

__all__ = ["add_parsers", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``threads``, with its ``export`` and ``import``, to the ``parley`` subcommands."""
    threads = sub.add_parser("threads", parents=[common], help="list or search saved threads")
    threads.add_argument("--search", help="full-text search in messages")
    actions = threads.add_subparsers(dest="threads_action", metavar="{branches,show,export,import}")
    branches = actions.add_parser(
        "branches",
        parents=[common],
        help="print the versions of a thread's messages (edits, answers given again) as a tree",
    )
    branches.add_argument("thread_id", metavar="ID", help="the thread's id (see parley threads)")
    show = actions.add_parser(
        "show", parents=[common], help="print a thread's messages: the branch shown last"
    )
    show.add_argument("thread_id", metavar="ID", help="the thread's id (see parley threads)")
    show.add_argument(
        "--branch",
        type=int,
        metavar="N",
        help="print branch N instead (its number in parley threads branches ID)",
    )
    export = actions.add_parser(
        "export",
        parents=[common],
        help="write a thread as JSON (to import elsewhere) or as Markdown (--markdown)",
    )
    export.add_argument("thread_id", metavar="ID", help="the thread's id (see parley threads)")
    export.add_argument("file", nargs="?", metavar="FILE", help="where to write (default: stdout)")
    export.add_argument("--markdown", action="store_true", help="a Markdown document instead")
    export.add_argument("--force", action="store_true", help="replace FILE if it exists")
    export.add_argument(
        "--branch",
        type=int,
        metavar="N",
        help="with --markdown: only branch N (its number in parley threads branches ID)",
    )
    imp = actions.add_parser(
        "import", parents=[common], help="add a thread from an exported JSON file; prints its id"
    )
    imp.add_argument("file", metavar="FILE")


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``threads``; ``None`` when it is another command."""
    if args.command != "threads":
        return None
    action = getattr(args, "threads_action", None)
    if action in ("branches", "show"):
        return asyncio.run(_branches(args, out, err))
    if action == "export":
        return asyncio.run(_export(args, out, err))
    if action == "import":
        return asyncio.run(_import(args, out, err))
    return asyncio.run(_list(args, out))


async def _list(args: argparse.Namespace, out: TextIO) -> int:
    from app.services.threads import saved_threads, search_saved

    # listing and searching need no writing: a read-only or full disk still shows them
    if args.search:
        for hit in await search_saved(args.data_dir, args.search):
            # a hit on a version not shown names its branch (parley threads show ID --branch N)
            branch = f"  (branch {hit.branch})" if hit.branch is not None else ""
            out.write(f"{hit.thread_id}  {hit.snippet}{branch}\n")
        return 0
    for thread in await saved_threads(args.data_dir):
        out.write(f"{thread.id}  {thread.title or '(untitled)'}\n")
    return 0


async def _branches(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.core.errors import ParleyError
    from app.services.threads import saved_branches, saved_path

    try:
        if args.threads_action == "show":
            messages = await saved_path(args.data_dir, args.thread_id, args.branch)
        else:
            thread, tree = await saved_branches(args.data_dir, args.thread_id)
    except ParleyError as exc:
        err.write(f"parley: {exc}\n")
        return 2
    if args.threads_action == "show":
        for message in messages:
            out.write(f"{message.agent or message.role}: {message.text().strip()}\n")
        return 0
    if not tree:
        out.write(f"thread {thread.id} has no branches: each message has one version\n")
        return 0
    for branch in tree:
        indent = "    " * branch.depth
        if branch.index == 1:  # the first version of a message: the message's heading
            versions = f"{branch.count} version{'s' if branch.count != 1 else ''}"
            out.write(f"{indent}message {branch.at}, {versions}:\n")
        length = f"{branch.length} message{'s' if branch.length != 1 else ''}"
        shown = ", shown" if branch.shown else ""
        named = f"[{branch.name}] " if branch.name else ""
        line = branch.line or "(no text)"
        out.write(f"{indent}  {branch.number}  {named}{line}  ({length}{shown})\n")
    return 0


async def _workspace(data_dir: str | None) -> Any:
    from app.services.workspace import Workspace

    return await Workspace.open(data_dir)


async def _export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    target = Path(args.file) if args.file else None
    if target is not None and refuse_existing(target, args.force, err):
        return 2
    fmt: Literal["markdown", "json"] = "markdown" if args.markdown else "json"
    if args.branch is not None and fmt == "json":
        err.write("parley: --branch exports one branch as Markdown (add --markdown); the JSON "
                  "export always holds every branch\n")  # fmt: skip
        return 2
    workspace = await _workspace(args.data_dir)
    try:
        if args.branch is not None:
            data = await workspace.threads.export_branch(args.thread_id, args.branch)
        else:
            data = await workspace.threads.export(args.thread_id, fmt)
    finally:
        await workspace.aclose()
    if target is None:
        out.write(data.decode("utf-8"))
        out.flush()
        return 0
    return await save_export(target, data, f"exported thread {args.thread_id}", err)


async def _import(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.core.errors import ParleyError

    source = Path(args.file)
    try:
        data = await asyncio.to_thread(source.read_bytes)
    except OSError as exc:
        err.write(f"parley: could not read {source}: {exc.strerror or exc}\n")
        return 2
    workspace = await _workspace(args.data_dir)
    try:
        thread = await workspace.threads.import_json(data)
    except ParleyError as exc:
        err.write(f"parley: could not import {source.name}: {exc}; nothing was added\n")
        return 2
    finally:
        await workspace.aclose()
    out.write(f"{thread.id}\n")
    for note in thread.notes:  # what the import left out (a file link, a model) and why
        err.write(f"parley: {note}\n")
    return 0
