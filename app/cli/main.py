"""Running ``parley``: parse the arguments, set up logging and the network gate, and run the
chosen command, or open the window when none is given."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any, TextIO, cast

from app.cli import chat, network
from app.cli.output import Output
from app.cli.parser import COMMANDS, build_parser
from app.cli.stdin import tolerant_stdin
from app.cli.text import as_text
from app.core.errors import ParleyError

__all__ = ["run"]


def _window(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Open the window; with no display, say so and chat in the terminal instead."""
    from app.ui.app import has_display, run_window

    if args.screenshot is None and not has_display():
        err.write("parley: no display found (DISPLAY is not set); starting the terminal chat\n")
        args.prompt, args.thread, args.resume, args.tools = None, None, False, False
        args.regenerate = False
        args.attach, args.no_knowledge, args.no_memory = [], False, False
        return asyncio.run(chat.run_chat(args, out, err))
    return run_window(
        args.data_dir,
        model=args.model,
        thread_id=args.thread,
        screenshot=args.screenshot,
        theme=args.theme,
        err=err,
        serve=_serve_in_window,
    )


async def _serve_in_window(workspace: Any, host: str, port: int, ask: Any) -> Any:
    """Settings > Server's ``parley serve``, its server stack loaded only when turned on."""
    from app.server.in_window import serve_in_window

    return await serve_in_window(workspace, host, port, ask)


def _start_logging(data_dir: str | None) -> str | None:
    from app.services.logs import start_logging

    return start_logging(data_dir)


def _dispatch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the command ``args`` name, or open the window when they name none."""
    if args.command is None:
        return _window(args, out, err)
    for command in COMMANDS:
        if (code := command.run_command(args, out, err)) is not None:
            return code
    raise AssertionError(f"no module runs the command {args.command!r}")


def run(
    argv: list[str], out: TextIO | None = None, err: TextIO | None = None, *, log: bool = False
) -> int:
    """Parse ``argv`` and run the chosen command; return the exit status. With ``log`` the
    run writes log files (the ``parley`` command does; tests calling this need not)."""
    out = cast(TextIO, Output(out or sys.stdout))
    err = cast(TextIO, Output(err or sys.stderr))
    args = build_parser().parse_args(argv)
    if log and (problem := _start_logging(args.data_dir)):
        err.write(f"parley: {problem}\n")
    for name in ("prompt", "thread", "search"):
        if isinstance(getattr(args, name, None), str):
            setattr(args, name, as_text(getattr(args, name)))
    tolerant_stdin()
    network.apply_offline(args)
    try:
        return _dispatch(args, out, err)
    except ParleyError as exc:
        err.write(f"parley: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write("\ninterrupted\n")
        return 130
