"""The parser of ``parley``: the window's flags, the options every command takes, and each
command's own arguments, added by the module that runs it."""

from __future__ import annotations

import argparse
from typing import Any, Protocol, TextIO

from app.cli import (
    agents,
    backup,
    chat,
    compare,
    diagnostics,
    keys,
    knowledge,
    mcp,
    memory,
    models,
    network,
    schedule,
    serve,
    threads,
    voice,
)

__all__ = ["COMMANDS", "Command", "build_parser"]


class Command(Protocol):
    """What the module of a subcommand has."""

    def add_parsers(self, sub: Any, common: argparse.ArgumentParser) -> None:
        """Add its subcommands to ``sub``; ``common`` holds the options every command takes."""

    def run_command(self, args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
        """Run ``args.command`` if it is one of its own and return the exit status;
        ``None`` when it is another command."""


COMMANDS: tuple[Command, ...] = (
    chat,
    compare,
    threads,
    agents,
    keys,
    mcp,
    diagnostics,
    backup,
    network,
    models,
    voice,
    knowledge,
    memory,
    schedule,
    serve,
)
"""The modules of the subcommands, in the order ``parley --help`` lists them."""


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


def _add_window_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of ``parley`` with no command, which opens the window."""
    parser.add_argument("--thread", help="open this thread in the window")
    parser.add_argument(
        "--screenshot", metavar="PNG", help="render the window offscreen to PNG and exit"
    )
    parser.add_argument("--theme", choices=["system", "light", "dark"], help="the window's colours")


def build_parser() -> argparse.ArgumentParser:
    """Return the parser for ``parley``."""
    parser = argparse.ArgumentParser(
        prog="parley",
        parents=[_common(None)],
        description="Chat with AI agents on your own machine.",
    )
    _add_window_flags(parser)
    common = _common(argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command")
    for command in COMMANDS:
        command.add_parsers(sub, common)
    return parser
