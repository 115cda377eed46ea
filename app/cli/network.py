"""``parley network``: the ledger of every connection Parley opened or refused; and
``--offline`` (or ``PARLEY_OFFLINE=1``) for any command."""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any, TextIO

__all__ = ["add_parsers", "apply_offline", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``network`` to the ``parley`` subcommands."""
    network = sub.add_parser(
        "network",
        parents=[common],
        help="list the connections Parley made or refused (address, purpose, outcome)",
    )
    network.add_argument(
        "--limit", type=int, default=50, help="how many, newest first (default 50)"
    )


def apply_offline(args: argparse.Namespace) -> None:
    """Install the network gate; with ``--offline`` refuse other computers from now on (and
    in every workspace this process opens)."""
    from app.core.netgate import install
    from app.services.network import ENV_VAR, forced_offline

    gate = install()
    if getattr(args, "offline", False):
        os.environ[ENV_VAR] = "1"
    gate.offline = gate.offline or forced_offline()


def _network(args: argparse.Namespace, out: TextIO) -> int:
    from app.services.network import describe_connection, forced_offline, saved_connections

    connections = asyncio.run(saved_connections(args.data_dir, args.limit))
    mode = "offline" if forced_offline() else "online unless Settings say offline"
    if not connections:
        out.write(f"Parley has made no connection yet ({mode}).\n")
        return 0
    for connection in connections:
        out.write(describe_connection(connection) + "\n")
    remote = sum(1 for c in connections if not c.local)
    out.write(f"{len(connections)} shown, {remote} to other computers.\n")
    return 0


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``network``; ``None`` when it is another command."""
    del err
    if args.command == "network":
        return _network(args, out)
    return None
