"""``parley agents``: list, show, add, edit, remove, export and import the agents a person
defines, through the same service as the window (and so with the same checks)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.export_file import refuse_existing, save_export
from app.cli.stdin import confirm
from app.cli.text import as_text, printable

if TYPE_CHECKING:
    from app.services.agents import Agent, AgentImport
    from app.services.workspace import Workspace

__all__ = ["add_parsers", "run_command"]

_LIMITS = (
    ("--max-model-calls", "max_model_calls", int),
    ("--max-tool-calls", "max_tool_calls", int),
    ("--max-tokens", "max_tokens", int),
    ("--max-cost", "max_cost", float),
)


def _definition_flags(parser: argparse.ArgumentParser) -> None:
    """The flags ``add`` and ``edit`` share; ``--model`` is the option every command takes."""
    parser.add_argument("--description", help="a short line saying what the agent is for")
    parser.add_argument("--instructions", help="what the agent is told (its system prompt)")
    parser.add_argument(
        "--instructions-file", metavar="FILE", help="read the instructions from FILE"
    )
    parser.add_argument(
        "--thread-model",
        action="store_true",
        help="run on the thread's model (no model of its own)",
    )
    parser.add_argument(
        "--tool", action="append", metavar="NAME", help="a tool it may use (repeat for more)"
    )
    parser.add_argument(
        "--delegate", action="append", metavar="AGENT", help="an agent it may ask (repeat)"
    )
    parser.add_argument(
        "--starter", action="append", metavar="TEXT", help="a starter prompt (at most 3)"
    )
    for flag, dest, kind in _LIMITS:
        parser.add_argument(flag, dest=dest, type=kind, metavar="N", help=f"{dest} of a turn")


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``agents`` and its actions to the ``parley`` subcommands."""
    agents = sub.add_parser("agents", parents=[common], help="list, add, change and share agents")
    actions = agents.add_subparsers(
        dest="agents_action", metavar="{list,show,add,edit,remove,export,import}"
    )
    actions.add_parser("list", parents=[common], help="the agents, Parley first")
    show = actions.add_parser("show", parents=[common], help="everything about one agent")
    show.add_argument("name", metavar="NAME")
    add = actions.add_parser("add", parents=[common], help="define a new agent")
    add.add_argument("name", metavar="NAME")
    _definition_flags(add)
    edit = actions.add_parser("edit", parents=[common], help="change an agent (flags given only)")
    edit.add_argument("name", metavar="NAME")
    edit.add_argument("--name", dest="new_name", metavar="NEW", help="a new name")
    _definition_flags(edit)
    remove = actions.add_parser(
        "remove", parents=[common], help="remove an agent (its threads go on with Parley)"
    )
    remove.add_argument("name", metavar="NAME")
    export = actions.add_parser(
        "export", parents=[common], help="write NAME.agent.json (no secrets) to share"
    )
    export.add_argument("name", metavar="NAME")
    export.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="where to write (default: NAME.agent.json; - : stdout)",
    )
    export.add_argument("--force", action="store_true", help="replace FILE if it exists")
    export.add_argument(
        "--with-memory",
        action="store_true",
        help="carry the agent's own memories too (local-only ones stay here)",
    )
    imp = actions.add_parser(
        "import", parents=[common], help="show what an agent file asks for, then add it"
    )
    imp.add_argument("file", metavar="FILE")
    imp.add_argument("--yes", action="store_true", help="add it without asking")


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``agents``; ``None`` when it is another command."""
    if args.command != "agents":
        return None
    return asyncio.run(_run(args, out, err))


async def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.workspace import Workspace

    for name in ("name", "new_name", "instructions", "description"):
        if isinstance(getattr(args, name, None), str):
            setattr(args, name, as_text(getattr(args, name)))
    action = getattr(args, "agents_action", None) or "list"
    workspace = await Workspace.open(args.data_dir)
    try:
        await workspace.agents.list()
        handler = _ACTIONS[action]
        return await handler(workspace, args, out, err)
    finally:
        await workspace.aclose()


async def _list(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    counts = await ws.agents.thread_counts()
    for agent in ws.agents.cached:
        n = counts.get(agent.id, 0)
        about = f"  {agent.description}" if agent.description else ""
        built_in = " (built in)" if agent.builtin else ""
        out.write(f"{agent.name}{built_in}{about}  [{n} thread{'s' if n != 1 else ''}]\n")
    return 0


def _describe(agent: Agent) -> list[str]:
    limits = agent.limits.model_dump(exclude_none=True)
    model = agent.model or "the thread's model"
    return [
        f"name: {agent.name}",
        f"description: {agent.description}",
        f"model: {model}",
        f"tools: {', '.join(agent.tools) or 'none'}",
        f"delegates: {', '.join(agent.delegates) or 'none'}",
        "limits: " + (", ".join(f"{k} {v:g}" for k, v in limits.items()) or "the settings' limits"),
        "starters:" + "".join(f"\n  {s}" for s in agent.starters),
        "instructions:" + "".join(f"\n  {line}" for line in agent.instructions.splitlines()),
    ]


async def _show(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    agent = await ws.agents.get(args.name)
    lines = _describe(agent)
    if rules := await ws.agents.rules_of(agent):
        lines.append(
            "always allows: " + "; ".join(r.rule.for_agent(None).describe() for r in rules)
        )
    if folders := ws.agents.knowledge_of(agent):
        lines.append("knowledge: " + ", ".join(folders))

    out.write(printable("\n".join(lines), getattr(out, "encoding", None)) + "\n")
    return 0


def _changes(args: argparse.Namespace) -> dict[str, Any]:
    """The fields the flags set (only those given)."""
    from app.core.errors import UserError

    changes: dict[str, Any] = {}
    if args.description is not None:
        changes["description"] = args.description
    if args.instructions is not None and args.instructions_file is not None:
        raise UserError("give --instructions or --instructions-file, not both")
    if args.instructions is not None:
        changes["instructions"] = args.instructions
    if args.instructions_file is not None:
        changes["instructions"] = _read_instructions(Path(args.instructions_file))
    if args.thread_model:
        changes["model"] = None
    elif getattr(args, "model", None):
        changes["model"] = args.model
    for flag, field in (("tool", "tools"), ("delegate", "delegates"), ("starter", "starters")):
        values = getattr(args, flag)
        if values is not None:
            changes[field] = tuple(as_text(v).strip() for v in values if v.strip())
    return changes


def _read_instructions(path: Path) -> str:
    from app.core.errors import UserError
    from app.services.agents.validation import MAX_INSTRUCTIONS

    try:
        with path.open("rb") as file:
            data = file.read(MAX_INSTRUCTIONS * 4 + 1)
    except OSError as exc:
        raise UserError(f"could not read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_INSTRUCTIONS * 4:
        raise UserError(
            f"{path} is too long for instructions (at most {MAX_INSTRUCTIONS:,} characters)"
        )
    return data.decode("utf-8", "replace")


def _limits(base: Agent, args: argparse.Namespace) -> Any:
    given = {dest: getattr(args, dest) for _, dest, _ in _LIMITS if getattr(args, dest) is not None}
    if not given:
        return base.limits
    return base.limits.model_copy(update=given)


async def _add(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.agents import Agent

    draft = Agent(name=args.name, **_changes(args))
    draft = draft.model_copy(update={"limits": _limits(draft, args)})
    agent = await ws.agents.add(draft)
    err.write(f"added agent {agent.name}\n")
    return 0


async def _edit(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    before = await ws.agents.get(args.name)
    changes = _changes(args)
    if args.new_name is not None:
        changes["name"] = args.new_name
    draft = before.model_copy(update={**changes, "limits": _limits(before, args)})
    agent = await ws.agents.edit(before.id, draft)
    err.write(f"changed agent {agent.name}\n")
    return 0


async def _remove(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    agent = await ws.agents.get(args.name)
    moved = await ws.agents.remove(agent.id)
    also = f"; its {moved} thread{'s' if moved != 1 else ''} go on with Parley" if moved else ""
    err.write(f"removed agent {agent.name}{also}\n")
    return 0


async def _export(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    agent = await ws.agents.get(args.name)
    data, notes = await ws.agents.export(agent, with_memory=args.with_memory)
    for note in notes:
        err.write(f"parley: {note}\n")
    if args.file == "-":
        out.write(data.decode("utf-8"))
        out.flush()
        return 0
    target = Path(args.file) if args.file else Path(ws.agents.file_name(agent))
    if refuse_existing(target, args.force, err):
        return 2
    return await save_export(target, data, f"exported agent {agent.name}", err)


def _show_plan(plan: AgentImport, out: TextIO) -> None:
    out.write(f"{plan.agent.name}: {plan.agent.description or 'an agent'}\n")
    for line in plan.asks:
        out.write(f"  {printable(line, getattr(out, 'encoding', None))}\n")
    for warning in plan.warnings:
        out.write(f"  ! {warning}\n")


async def _import(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.agents.files import MAX_FILE_BYTES

    source = Path(args.file)

    def read() -> bytes:
        with source.open("rb") as file:  # no more than the most an agent file may be
            return file.read(MAX_FILE_BYTES + 1)

    try:
        data = await asyncio.to_thread(read)
    except OSError as exc:
        err.write(f"parley: could not read {source}: {exc.strerror or exc}\n")
        return 2
    plan = await ws.agents.read_file(data)
    _show_plan(plan, out)
    if plan.refusal is not None:
        err.write(f"parley: {plan.refusal}\n")
        return 2
    if not args.yes and not await confirm(f"Add the agent {plan.agent.name}? [y/N] ", err):
        err.write("nothing was added (--yes adds it without asking)\n")
        return 1
    agent = await ws.agents.import_agent(plan)
    err.write(f"added agent {agent.name}\n")
    return 0


_ACTIONS = {
    "list": _list,
    "show": _show,
    "add": _add,
    "edit": _edit,
    "remove": _remove,
    "export": _export,
    "import": _import,
}
