"""``parley chat``: one turn, a resumed one, or a conversation typed line by line, with the
reply streamed to the terminal as it comes and approvals asked there."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.text import as_text, printable
from app.core.errors import UserError
from app.core.state import ContentBlock, ErrorBlock, Message, TextBlock
from app.services.events import (
    MessageAdded,
    MessageStreamed,
    Retrying,
    ToolActivity,
    WorkspaceEvent,
)

if TYPE_CHECKING:
    from app.cli.session import Session
    from app.services.conversation import TurnOutcome

__all__ = ["DEFAULT_MODEL", "add_parsers", "run_chat", "run_command"]

DEFAULT_MODEL = "local"


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``chat`` to the ``parley`` subcommands."""
    chat = sub.add_parser("chat", parents=[common], help="run one chat turn in the terminal")
    chat.add_argument("prompt", nargs="?", help="what to say (omit with --resume)")
    chat.add_argument(
        "--tools",
        action="store_true",
        help="offer the model the built-in tools (time, read/write text files; file calls "
        "ask for your approval) and remember (asks before it keeps a memory)",
    )
    chat.add_argument(
        "--no-knowledge",
        action="store_true",
        help="leave the knowledge folders out of this chat: no passages put before the "
        "questions, and no search_knowledge with --tools",
    )
    chat.add_argument(
        "--no-memory",
        action="store_true",
        help="incognito: no memory goes before the questions, and nothing is remembered",
    )
    chat.add_argument("--thread", help="continue this thread instead of starting a new one")
    chat.add_argument(
        "--agent",
        metavar="NAME",
        help="start the thread with this agent (with --thread: the thread's agent from now on)",
    )
    chat.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="attach a file to the prompt (images, PDFs, text, Word, audio, video, anything); "
        "repeat for more files",
    )
    chat.add_argument(
        "--regenerate",
        action="store_true",
        help="with --thread: answer its last message again; the earlier answer stays as a "
        "branch (see parley threads branches ID)",
    )
    chat.add_argument(
        "--resume",
        action="store_true",
        help="answer the approvals the thread is waiting on, then continue",
    )


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``chat``; ``None`` when it is another command."""
    if args.command == "chat":
        return asyncio.run(run_chat(args, out, err))
    return None


class _Printer:
    """Writes a driven thread's events to the terminal: the reply as it streams (or whole,
    when it did not stream, like the note a run leaves when it stops at a budget limit), a
    delegate agent's replies as bracketed lines, tool calls starting or failing, and retries
    while a provider is busy."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self._shown: dict[str, int] = {}

    def __call__(self, event: WorkspaceEvent) -> None:
        if isinstance(event, MessageStreamed):
            if event.message.agent is None:  # a delegate's words are shown once they are whole
                self._reply(event.message_id, event.message.text())
        elif isinstance(event, MessageAdded) and event.message.role == "assistant":
            if event.message.agent is not None:
                self._delegated(event.message.agent, event.message.text())
            else:
                self._reply(str(event.message.message_id), event.message.text())
            self._sources(event.message)
        elif isinstance(event, ToolActivity) and event.status in ("started", "error"):
            note = f" {event.message}" if event.message else ""
            self.out.write(f"\n[{event.tool}: {event.status}{note}]\n")
        elif isinstance(event, Retrying):
            self.err.write(f"({event.provider} is busy; trying again in {event.delay:.0f} s)\n")

    def _delegated(self, agent: str, text: str) -> None:
        """A delegate agent's reply, as one bracketed line: "[Researcher: It is 4 °C.]"."""
        line = " ".join(text.split())
        if line:
            line = line if len(line) <= 300 else line[:299] + "…"
            encoding = getattr(self.out, "encoding", None)
            self.out.write(printable(f"\n[{' '.join(agent.split())}: {line}]\n", encoding))
            self.out.flush()

    def _sources(self, message: Message) -> None:
        """List the sources the reply cites (knowledge passages), numbered."""
        refs = [a for b in message.content if isinstance(b, TextBlock) for a in b.annotations]
        if refs:
            self.out.write("\n\nSources:")
        encoding = getattr(self.out, "encoding", None)
        for number, ref in enumerate(refs, 1):  # a title comes from a file: print it safely
            line = f"\n[{number}] {ref.title or ref.url}  {ref.url or ''}"
            self.out.write(printable(line, encoding))
        self.out.flush()

    def _reply(self, message_id: str, text: str) -> None:
        """Write the part of the reply ``message_id`` not shown yet."""
        shown = self._shown.get(message_id, 0)
        if len(text) > shown:
            self.out.write(printable(text[shown:], getattr(self.out, "encoding", None)))
            self.out.flush()
            self._shown[message_id] = len(text)


def _report(outcome: TurnOutcome, out: TextIO, err: TextIO, thread_id: str) -> int:
    """Say on ``err`` how the turn ended (problems, a wait for approval, the reply's errors)
    and return the exit status."""
    out.write("\n")
    for problem in outcome.problems:
        err.write(f"parley: {problem.text}\n")
    state = outcome.state
    if outcome.waiting:
        err.write(
            f"Waiting for your approval. Continue with: parley chat --thread {thread_id} --resume\n"
        )
        return 3
    if outcome.problems:
        return 2
    last = state.context[-1] if state is not None and state.context else None
    errors = [b for b in (last.content if last else []) if isinstance(b, ErrorBlock)]
    for block in errors:
        err.write(f"error: {block.error}\n")
        kind, _, key = (block.code or "").partition(":")
        if kind == "auth" and key:
            err.write(f"(store the key with: parley key set {key})\n")
    return 1 if errors else 0


async def run_chat(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``parley chat`` as ``args`` say; return the exit status."""
    from app.cli.session import open_session

    if (refused := _refusal(args)) is not None:
        err.write(refused + "\n")
        return 2
    model = args.model or DEFAULT_MODEL
    printer = _Printer(out, err)
    async with open_session(
        args.data_dir,
        model,
        interactive=True,
        tools=args.tools,
        knowledge=not args.no_knowledge,
        memory=not args.no_memory,
        on_event=printer,
    ) as s:
        args.agent_id = await _choose_agent(s, args)
        if args.thread:
            await _choose_thread_model(s, args.thread, args.model)
        else:
            # a model that cannot be used makes no thread
            await s.workspace.models.check(await _agent_model(s, args.agent_id) or model)
        if args.resume:
            outcome = await s.chat.resume(args.thread)
            return _report(outcome, out, err, args.thread)
        if args.regenerate:
            outcome = await s.chat.regenerate(args.thread)
            return _report(outcome, out, err, args.thread)
        if args.prompt is None:
            return await _repl(s, args.thread, out, err, args.agent_id, not args.no_memory)
        if (note := _remember_text(args.prompt)) is not None:
            return await _remember(s, note, args.agent_id, not args.no_memory, out, err)
        return await _one_turn(s, args, out, err)


def _refusal(args: argparse.Namespace) -> str | None:
    """Why the arguments make no turn (``--resume`` with a prompt, an empty prompt), or
    ``None`` when they do."""
    if args.regenerate:
        if not args.thread:
            return "--regenerate needs --thread THREAD_ID"
        if args.prompt is not None or args.attach or args.resume:
            return "--regenerate answers the thread's last message again; send a prompt after it"
    elif args.resume:
        if not args.thread:
            return "--resume needs --thread THREAD_ID"
        if args.prompt is not None or args.attach:
            return "--resume answers the pending approvals; send the prompt after it"
    elif args.attach and args.prompt is None:
        return "--attach needs a PROMPT to send the files with"
    elif args.prompt is not None and not args.prompt.strip():
        return "nothing to say: the prompt is empty"
    return None


REMEMBER = "/remember"
"""A chat message starting with this keeps the rest as a memory, sent to no model."""


def _remember_text(text: str) -> str | None:
    """What ``/remember TEXT`` asks to keep (``""`` when nothing follows), or ``None`` when
    ``text`` is an ordinary message."""
    first, _, rest = text.strip().partition(" ")
    return rest.strip() if first == REMEMBER else None


async def _remember(
    session: Session, text: str, agent_id: str | None, memory: bool, out: TextIO, err: TextIO
) -> int:
    """Keep ``text`` as a memory the person wrote (for ``agent_id``, else everyone); refused
    in an incognito chat. The exit status."""
    if not memory:
        err.write("Nothing was remembered: this chat is incognito (--no-memory).\n")
        return 2
    if not text:
        err.write("Nothing to remember: write the note after /remember.\n")
        return 2
    try:
        kept = await session.workspace.memory.add(text, agent_id=agent_id)
    except UserError as exc:
        err.write(f"parley: {exc}\n")
        return 2
    out.write(
        printable(f"Remembered ({kept.short_id}): {kept.text}\n", getattr(out, "encoding", None))
    )
    return 0


async def _one_turn(session: Session, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Send ``args.prompt`` with its ``--attach`` files, on ``args.thread`` or a new thread
    (named on stderr), and report how the turn ended."""
    blocks: list[ContentBlock] = []
    notes: list[str] = []
    if args.attach:
        blocks, notes = await _attach_files(session, args, err)
    thread_id = args.thread or (await _new_thread(session, args.prompt, args.agent_id)).id
    outcome = await session.chat.send(thread_id, args.prompt, blocks, notes=notes)
    code = _report(outcome, out, err, thread_id)
    if not args.thread:
        err.write(f"(thread {thread_id})\n")
    return code


async def _choose_agent(session: Session, args: argparse.Namespace) -> str | None:
    """The id of the agent ``--agent`` names (``None`` without it); with ``--thread`` the
    thread runs on it from now on."""
    name = getattr(args, "agent", None)
    if not name:
        return None
    agent = await session.workspace.agents.get(as_text(name))
    if args.thread:
        await session.workspace.threads.set_agent(args.thread, agent.id)
    return agent.id


async def _agent_model(session: Session, agent_id: str | None) -> str | None:
    """The model of the agent ``agent_id`` when it has one of its own."""
    agent = await session.workspace.agents.by_id(agent_id) if agent_id else None
    return agent.model if agent is not None else None


async def _choose_thread_model(session: Session, thread_id: str, model: str | None) -> None:
    """Continue ``thread_id`` on its own model, or on ``model`` from now on when one is given."""
    thread = await session.workspace.threads.get(thread_id)
    spec = model or thread.model or session.model_spec
    await session.workspace.models.check(spec)
    if model is not None and model != thread.model:
        await session.workspace.threads.set_model(thread_id, model)
    elif not thread.model:
        await session.workspace.threads.set_model(thread_id, spec)


async def _attach_files(
    session: Session, args: argparse.Namespace, err: TextIO
) -> tuple[list[ContentBlock], list[str]]:
    """Ingest ``--attach`` files: a line for each that could not be attached and for each the
    model will not see (those notes are also kept on the message); the turn runs with the
    rest."""
    got = await session.workspace.attachments.attach(args.attach)
    for line in got.problems:
        err.write(f"not attached: {as_text(line)}\n")
    thread = await session.workspace.threads.get(args.thread) if args.thread else None
    spec = (thread and thread.model) or session.model_spec
    left_out = await session.workspace.attachments.left_out(got.blocks, spec)
    for note in [*got.notes, *left_out]:
        err.write(f"note: {as_text(note)}\n")
    return list(got.blocks), left_out


async def _new_thread(session: Session, text: str, agent_id: str | None) -> Any:
    """A new thread titled after ``text``, on the agent ``agent_id`` (Parley when ``None``)."""
    if agent_id is None:
        return await session.chat.new_thread(text)
    return await session.chat.new_thread(text, agent_id=agent_id)


async def _repl(
    session: Session,
    thread_id: str | None,
    out: TextIO,
    err: TextIO,
    agent_id: str | None = None,
    memory: bool = True,
) -> int:
    from app.cli.stdin import read_line

    out.write(f"Parley on {session.model_spec}. Type /quit to leave.\n")
    while True:
        try:
            line = await read_line("> ")
        except EOFError:
            return 0
        text = line.strip()
        if text in ("/quit", "/exit"):
            return 0
        if not text:
            continue
        if (note := _remember_text(text)) is not None:
            await _remember(session, note, agent_id, memory, out, err)
            continue
        if thread_id is None:
            thread_id = (await _new_thread(session, text, agent_id)).id
            err.write(f"(thread {thread_id})\n")
        _report(await session.chat.send(thread_id, text), out, err, thread_id)
