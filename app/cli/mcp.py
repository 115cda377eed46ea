"""``parley mcp``: add, list, remove and import the MCP servers whose tools Parley offers.

    parley mcp add NAME -- COMMAND [ARGS...]     a server run as a subprocess (stdio)
    parley mcp add NAME --url URL [--header K=V]  a streamable-HTTP server
    parley mcp list                               servers, their state and their tools
    parley mcp remove NAME
    parley mcp import FILE [--trust]              another app's "mcpServers" file

An env or header value may name a keyring secret as ``{keyring:REF}`` (set it with
``parley key set REF``); the value itself is never written to ``mcp.json``. An imported
server that reads a secret not under ``mcp/NAME/`` or runs tools without asking is held
back, each claim said on its own line, unless ``--trust`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
from typing import Any, TextIO

__all__ = ["add_parsers", "run_command"]

_ADD_EXAMPLE = (
    "e.g. parley mcp add time -- uvx mcp-server-time, or "
    "parley mcp add docs --url https://example.org/mcp"
)


class _DashesParser(argparse.ArgumentParser):
    """Takes everything after ``--`` as the server's command, wherever the options are."""

    def parse_known_args(  # type: ignore[override]
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parse what comes before ``--``; what follows it is ``server_command``."""
        given = list(args or [])
        tail: list[str] = []
        if "--" in given:
            at = given.index("--")
            given, tail = given[:at], given[at + 1 :]
        parsed, extras = super().parse_known_args(given, namespace)
        if tail and hasattr(parsed, "server_command"):
            parsed.server_command = tail
        elif tail:
            extras += ["--", *tail]
        return parsed, extras


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``mcp`` and its actions to the ``parley`` subcommands ``sub`` (with a
    ``--data-dir`` of their own rather than ``common``: they take no model)."""
    del common
    dirs = argparse.ArgumentParser(add_help=False)
    dirs.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="where mcp.json and the server logs are kept (default: as for threads)",
    )
    mcp = sub.add_parser("mcp", parents=[dirs], help="MCP servers whose tools the model may use")
    actions = mcp.add_subparsers(
        dest="mcp_command", metavar="{add,list,remove,import}", parser_class=_DashesParser
    )
    _add_add_parser(actions, dirs)
    actions.add_parser("list", parents=[dirs], help="servers, their state and their tools")
    remove = actions.add_parser("remove", parents=[dirs], help="remove a server")
    remove.add_argument("name")
    _add_import_parser(actions, dirs)


def _add_add_parser(actions: Any, dirs: argparse.ArgumentParser) -> None:
    """``parley mcp add``: a command after ``--``, or ``--url``."""
    add = actions.add_parser(
        "add",
        parents=[dirs],
        help="add a server",
        usage="parley mcp add NAME [--env K=V] -- COMMAND [ARGS...]\n"
        "       parley mcp add NAME --url URL [--header K=V]",
    )
    add.add_argument("name", help="what to call it; its tools are offered as NAME__TOOL")
    add.add_argument("--url", help="the address of a streamable-HTTP server")
    add.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="K=V",
        help="an HTTP header; the value may hold {keyring:REF}",
    )
    add.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="an environment variable for the command; the value may hold {keyring:REF}",
    )
    add.add_argument(
        "--policy",
        choices=["allowed", "approval", "off"],
        help="for every tool of the server (default: each asks first until you allow it)",
    )
    add.add_argument("--timeout", type=float, help="seconds a call may take (default 120)")
    add.set_defaults(server_command=[])


def _add_import_parser(actions: Any, dirs: argparse.ArgumentParser) -> None:
    """``parley mcp import FILE [--trust]``."""
    imp = actions.add_parser(
        "import", parents=[dirs], help='add the servers of another app\'s "mcpServers" file'
    )
    imp.add_argument("file")
    imp.add_argument(
        "--trust",
        action="store_true",
        help="also import servers that read keyring secrets not under mcp/NAME/ or let tools "
        "run without asking (each is listed)",
    )


def _pairs(values: list[str], what: str) -> dict[str, str]:
    from app.services.mcp.config import McpConfigError

    pairs: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise McpConfigError(f"{what} {item!r} needs the form NAME=VALUE")
        pairs[key.strip()] = value
    return pairs


def _add(args: argparse.Namespace, out: TextIO) -> int:
    from app.services.mcp.config import McpConfig, McpConfigError, parse_server

    if args.url and args.server_command:
        raise McpConfigError("give either a command after -- or --url, not both")
    if not args.url and not args.server_command:
        raise McpConfigError(f"parley mcp add needs a command after -- or --url ({_ADD_EXAMPLE})")
    if args.url and args.env:
        raise McpConfigError("--env is for a command; an HTTP server takes --header")
    if args.server_command and args.header:
        raise McpConfigError("--header is for an HTTP server (--url); a command takes --env")
    entry: dict[str, Any]
    if args.url:
        entry = {"url": args.url, "headers": _pairs(args.header, "--header")}
    else:
        command, *rest = args.server_command
        entry = {"command": command, "args": rest, "env": _pairs(args.env, "--env")}
    if args.policy:
        entry["policy"] = args.policy
    if args.timeout is not None:
        entry["timeout"] = args.timeout
    server = parse_server(args.name, entry)
    McpConfig.for_data_dir(args.data_dir).add(server)
    out.write(f"added {server.name} ({server.transport}: {server.describe()})\n")
    out.write("check it with: parley mcp list\n")
    return 0


async def _list(args: argparse.Namespace, out: TextIO) -> int:
    from app.services.mcp.service import McpService

    service = await McpService.open(args.data_dir)
    try:
        status = await service.check()
    finally:
        await service.aclose()
    if not status.servers and not status.problems:
        out.write(
            f"No MCP servers are configured ({status.config}). Add one with: "
            "parley mcp add NAME -- COMMAND [ARGS...]\n"
        )
        return 0
    for server in status.servers:
        head = f"{server.name}  ({server.transport}: {server.reaches})"
        if server.state == "disabled":
            out.write(f"{head}  disabled\n")
            continue
        if server.state != "running":
            out.write(f"{head}  {server.state}: {server.reason}\n")
            continue
        out.write(f"{head}  running\n")
        width = max((len(t.name) for t in server.tools if t.offered), default=0)
        for tool in server.tools:
            out.write(f"  {tool.name:<{width}}  {tool.policy:<8}  {tool.about}\n")
        out.write(f"  log: {server.log}\n")
    for name, reason in status.problems.items():
        out.write(f"{name}  not usable: {reason}\n")
    return 0


def _import(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.mcp.config import McpConfig
    from app.services.mcp.importing import import_file, shown_name

    report = import_file(McpConfig.for_data_dir(args.data_dir), args.file, trust=args.trust)
    for name in report.added:
        out.write(f"imported {name}\n")
        for claim in report.trusted.get(name, []):
            out.write(f"trusted {name}: {claim}\n")
    for name, reason in report.skipped.items():
        err.write(f"skipped {shown_name(name)}: {reason}\n")
    for name, claims in report.held.items():
        for claim in claims:
            err.write(f"held back {name}: {claim}\n")
    if report.held:
        err.write(
            f"to import {', '.join(report.held)} as the file says, run again with --trust: "
            f"parley mcp import {shlex.quote(args.file)} --trust\n"
        )
    if report.added:
        out.write("check them with: parley mcp list\n")
    return 0 if report.added else 1


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``parley mcp ACTION`` if ``args.command`` is ``mcp``; ``None`` when it is another
    command."""
    from app.services.mcp.config import McpConfig

    if args.command != "mcp":
        return None
    args.data_dir = getattr(args, "data_dir", None)
    if args.mcp_command == "add":
        return _add(args, out)
    if args.mcp_command == "list":
        return asyncio.run(_list(args, out))
    if args.mcp_command == "remove":
        McpConfig.for_data_dir(args.data_dir).remove(args.name)
        out.write(f"removed {args.name}\n")
        return 0
    if args.mcp_command == "import":
        return _import(args, out, err)
    err.write("parley mcp needs an action: add, list, remove or import (see parley mcp --help)\n")
    return 2
