"""Parley's command line: ``parley``, ``parley chat``, ``parley threads``, ``parley key``,
``parley mcp``."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import io
import os
import sys
from typing import TYPE_CHECKING, TextIO, cast

from app import cli_backup, cli_diagnostics, cli_mcp, cli_models, cli_network, cli_threads
from app.core.errors import ParleyError
from app.core.state import ContentBlock, ErrorBlock
from app.services.events import (
    MessageAdded,
    MessageStreamed,
    Retrying,
    ToolActivity,
    WorkspaceEvent,
)
from app.services.hidden_chars import escape_hidden

if TYPE_CHECKING:
    from app.services.conversation import TurnOutcome
    from app.services.session import Session

DEFAULT_MODEL = "local"


def _common(default: object) -> argparse.ArgumentParser:
    """``--data-dir`` and ``--model``, defaulting to ``default``. Subcommands take them with
    no default of their own, so a value given before the subcommand is kept."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=default,
        help="where threads are stored (default: PARLEY_DATA_DIR or your user data directory)",
    )
    common.add_argument(
        "--offline",
        action="store_true",
        default=argparse.SUPPRESS,  # given before or after the command, it counts
        help="refuse every connection to another computer (also: PARLEY_OFFLINE=1)",
    )
    common.add_argument(
        "--model",
        default=default,
        help="model spec: local, gguf:PATH, ollama:NAME[@URL], "
        "openai:NAME[@BASE_URL], anthropic:NAME, scripted:FILE.json",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    """Return the parser for ``parley``."""
    parser = argparse.ArgumentParser(
        prog="parley",
        parents=[_common(None)],
        description="Chat with AI agents on your own machine.",
    )
    common = _common(argparse.SUPPRESS)
    parser.add_argument("--thread", help="open this thread in the window")
    parser.add_argument(
        "--screenshot", metavar="PNG", help="render the window offscreen to PNG and exit"
    )
    parser.add_argument("--theme", choices=["system", "light", "dark"], help="the window's colours")
    sub = parser.add_subparsers(dest="command")
    chat = sub.add_parser("chat", parents=[common], help="run one chat turn in the terminal")
    chat.add_argument("prompt", nargs="?", help="what to say (omit with --resume)")
    chat.add_argument(
        "--tools",
        action="store_true",
        help="offer the model the built-in tools (time, read/write text files; file calls "
        "ask for your approval)",
    )
    chat.add_argument("--thread", help="continue this thread instead of starting a new one")
    chat.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="attach a file to the prompt (images, PDFs, text, Word, audio, video, anything); "
        "repeat for more files",
    )
    chat.add_argument(
        "--resume",
        action="store_true",
        help="answer the approvals the thread is waiting on, then continue",
    )
    threads = sub.add_parser("threads", parents=[common], help="list or search saved threads")
    threads.add_argument("--search", help="full-text search in messages")
    cli_threads.register(threads, common)
    key = sub.add_parser("key", parents=[common], help="keep API keys in the keyring")
    key.add_argument("action", choices=["set", "delete", "status"])
    key.add_argument("ref", nargs="?", help="e.g. openai/api-key or anthropic/api-key")
    cli_mcp.register(sub)
    cli_diagnostics.add_parsers(sub, common)
    cli_backup.add_parsers(sub, common)
    cli_network.add_parsers(sub, common)
    cli_models.register(sub, common)
    return parser


class _Output(io.TextIOBase):
    """Writes to ``target`` until it goes away (a closed pipe, as in ``parley chat | head``);
    after that, output is dropped, so the turn still finishes and is saved whole. What is
    written shows terminal controls and bidi characters escaped (see :func:`_printable`)."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self._target = target
        self.lost = False

    def write(self, text: str) -> int:
        """Write ``text``, made printable, if the target is still there."""
        return self.write_control(_printable(text, getattr(self._target, "encoding", None)))

    def write_control(self, text: str) -> int:
        """Write ``text`` as it is (Parley's own cursor moves, such as a progress line's
        carriage return) if the target is still there."""
        if not self.lost:
            try:
                self._target.write(text)
            except (OSError, ValueError):
                self._lose()
        return len(text)

    def isatty(self) -> bool:
        """Whether the target is a terminal."""
        return not self.lost and self._target.isatty()

    def flush(self) -> None:
        """Flush the target if it is still there."""
        if not self.lost:
            try:
                self._target.flush()
            except (OSError, ValueError):
                self._lose()

    def _lose(self) -> None:
        self.lost = True
        if self._target is sys.stdout:
            # later writes by others (prompts) and the flush at exit would fail again
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            finally:
                os.close(devnull)


def _printable(text: str, encoding: str | None) -> str:
    """``text`` with controls, bidi and invisible characters escaped (``\\x1b``, ``\\u202e``),
    so what a model or server sends cannot move the cursor, rewrite the clipboard or reorder
    a line, and what the output's encoding cannot write (characters a terminal's narrower
    encoding lacks) as ``?``."""
    text = escape_hidden(text)
    codec = encoding or "utf-8"
    try:
        return text.encode(codec, "replace").decode(codec)
    except LookupError:
        return text.encode("utf-8", "replace").decode("utf-8")


class _Printer:
    """Writes a driven thread's events to the terminal: the reply as it streams (or whole,
    when it did not stream, like the note a run leaves when it stops at a budget limit), tool
    calls starting or failing, and retries while a provider is busy."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self._shown: dict[str, int] = {}

    def __call__(self, event: WorkspaceEvent) -> None:
        if isinstance(event, MessageStreamed):
            self._reply(event.message_id, event.message.text())
        elif isinstance(event, MessageAdded) and event.message.role == "assistant":
            self._reply(str(event.message.message_id), event.message.text())
        elif isinstance(event, ToolActivity) and event.status in ("started", "error"):
            note = f" {event.message}" if event.message else ""
            self.out.write(f"\n[{event.tool}: {event.status}{note}]\n")
        elif isinstance(event, Retrying):
            self.err.write(f"({event.provider} is busy; trying again in {event.delay:.0f} s)\n")

    def _reply(self, message_id: str, text: str) -> None:
        """Write the part of the reply ``message_id`` not shown yet."""
        shown = self._shown.get(message_id, 0)
        if len(text) > shown:
            self.out.write(_printable(text[shown:], getattr(self.out, "encoding", None)))
            self.out.flush()
            self._shown[message_id] = len(text)


def _report(outcome: TurnOutcome, out: TextIO, err: TextIO, thread_id: str) -> int:
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


async def _chat(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.session import open_session

    if args.resume:
        if not args.thread:
            err.write("--resume needs --thread THREAD_ID\n")
            return 2
        if args.prompt is not None or args.attach:
            err.write("--resume answers the pending approvals; send the prompt after it\n")
            return 2
    elif args.attach and args.prompt is None:
        err.write("--attach needs a PROMPT to send the files with\n")
        return 2
    elif args.prompt is not None and not args.prompt.strip():
        err.write("nothing to say: the prompt is empty\n")
        return 2
    model = args.model or DEFAULT_MODEL
    printer = _Printer(out, err)
    async with open_session(
        args.data_dir, model, interactive=True, tools=args.tools, on_event=printer
    ) as s:
        if args.thread:
            await _choose_thread_model(s, args.thread, args.model)
        else:
            await s.workspace.models.check(model)  # a model that cannot be used makes no thread
        if args.resume:
            outcome = await s.chat.resume(args.thread)
            return _report(outcome, out, err, args.thread)
        if args.prompt is None:
            return await _repl(s, args.thread, out, err)
        blocks: list[ContentBlock] = []
        notes: list[str] = []
        if args.attach:
            blocks, notes = await _attach_files(s, args, err)
        thread_id = args.thread or (await s.chat.new_thread(args.prompt)).id
        outcome = await s.chat.send(thread_id, args.prompt, blocks, notes=notes)
        code = _report(outcome, out, err, thread_id)
        if not args.thread:
            err.write(f"(thread {thread_id})\n")
        return code


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
        err.write(f"not attached: {_as_text(line)}\n")
    thread = await session.workspace.threads.get(args.thread) if args.thread else None
    spec = (thread and thread.model) or session.model_spec
    left_out = await session.workspace.attachments.left_out(got.blocks, spec)
    for note in [*got.notes, *left_out]:
        err.write(f"note: {_as_text(note)}\n")
    return list(got.blocks), left_out


async def _repl(session: Session, thread_id: str | None, out: TextIO, err: TextIO) -> int:
    from app.services.terminal_input import read_line

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
        if thread_id is None:
            thread_id = (await session.chat.new_thread(text)).id
            err.write(f"(thread {thread_id})\n")
        _report(await session.chat.send(thread_id, text), out, err, thread_id)


async def _threads(args: argparse.Namespace, out: TextIO) -> int:
    from app.store import Store

    # listing and searching need no writing: a read-only or full disk still shows them
    async with Store.open_data_dir(args.data_dir, reading_is_enough=True) as store:
        if args.search:
            for hit in await store.search(args.search):
                out.write(f"{hit.thread_id}  {hit.snippet}\n")
            return 0
        for thread in await store.list_threads():
            out.write(f"{thread.id}  {thread.title or '(untitled)'}\n")
    return 0


def _key(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.secrets.keyring_resolver import KeyringSecretResolver

    resolver = KeyringSecretResolver()
    if args.action == "status":
        status = resolver.status()
        state = "available" if status.available else "not available"
        out.write(f"keyring: {status.backend} ({state})\n")
        if status.message:
            out.write(f"{status.message}\n")
        return 0 if status.available else 1
    if not args.ref:
        err.write(f"parley key {args.action} needs a name, e.g. openai/api-key\n")
        return 2
    if args.action == "delete":
        resolver.delete(args.ref)
        out.write(f"deleted {args.ref}\n")
        return 0
    value = getpass.getpass(f"{args.ref}: ") if sys.stdin.isatty() else sys.stdin.readline()
    if "\ufffd" in value:
        err.write(f"{args.ref}: the key holds bytes that are not text; nothing was stored\n")
        return 2
    status = resolver.set(args.ref, value.strip())
    out.write(f"stored {args.ref} in the keyring ({status.backend})\n")
    return 0


def _window(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Open the window; with no display, say so and chat in the terminal instead."""
    from app.ui.app import has_display, run_window

    if args.screenshot is None and not has_display():
        err.write("parley: no display found (DISPLAY is not set); starting the terminal chat\n")
        args.prompt, args.thread, args.resume, args.tools = None, None, False, False
        args.attach = []
        return asyncio.run(_chat(args, out, err))
    return run_window(
        args.data_dir,
        model=args.model,
        thread_id=args.thread,
        screenshot=args.screenshot,
        theme=args.theme,
        err=err,
    )


def _start_logging(data_dir: str | None) -> str | None:
    from app.services.logs import start_logging

    return start_logging(data_dir)


def _as_text(value: str) -> str:
    """``value`` with bytes that were not UTF-8 (kept by Python as lone surrogates) turned
    into U+FFFD, so it can be stored and shown."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _tolerant_stdin() -> None:
    """Read bytes on stdin that are not valid text as U+FFFD instead of failing on them."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")


def run(
    argv: list[str], out: TextIO | None = None, err: TextIO | None = None, *, log: bool = False
) -> int:
    """Parse ``argv`` and run the chosen command; return the exit status. With ``log`` the
    run writes log files (the ``parley`` command does; tests calling this need not)."""
    out = cast(TextIO, _Output(out or sys.stdout))
    err = cast(TextIO, _Output(err or sys.stderr))
    args = build_parser().parse_args(argv)
    if log and (problem := _start_logging(args.data_dir)):
        err.write(f"parley: {problem}\n")
    for name in ("prompt", "thread", "search"):
        if isinstance(getattr(args, name, None), str):
            setattr(args, name, _as_text(getattr(args, name)))
    _tolerant_stdin()
    cli_network.apply_offline(args)
    try:
        if args.command == "threads":
            code = cli_threads.run(args, out, err)
            return asyncio.run(_threads(args, out)) if code is None else code
        if args.command == "key":
            return _key(args, out, err)
        if args.command == "mcp":
            return cli_mcp.run(args, out, err)
        if (code := cli_diagnostics.run_command(args, out, err)) is not None:
            return code
        if (code := cli_backup.run_command(args, out, err)) is not None:
            return code
        if (code := cli_network.run_command(args, out, err)) is not None:
            return code
        if args.command == "models":
            return cli_models.run(args, out, err)
        if args.command is None:
            return _window(args, out, err)
        return asyncio.run(_chat(args, out, err))
    except ParleyError as exc:
        err.write(f"parley: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write("\ninterrupted\n")
        return 130
