"""``parley key set|delete|status``: API keys kept in the system keyring, never in a file."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any, TextIO

__all__ = ["add_parsers", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``key`` to the ``parley`` subcommands."""
    key = sub.add_parser("key", parents=[common], help="keep API keys in the keyring")
    key.add_argument("action", choices=["set", "delete", "status"])
    key.add_argument("ref", nargs="?", help="e.g. openai/api-key or anthropic/api-key")


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``key``; ``None`` when it is another command."""
    if args.command == "key":
        return _key(args, out, err)
    return None


def _key(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.keys import delete_key, keyring_status, store_key

    if args.action == "status":
        status = keyring_status()
        state = "available" if status.available else "not available"
        out.write(f"keyring: {status.backend} ({state})\n")
        if status.message:
            out.write(f"{status.message}\n")
        return 0 if status.available else 1
    if not args.ref:
        err.write(f"parley key {args.action} needs a name, e.g. openai/api-key\n")
        return 2
    if args.action == "delete":
        delete_key(args.ref)
        out.write(f"deleted {args.ref}\n")
        return 0
    value = getpass.getpass(f"{args.ref}: ") if sys.stdin.isatty() else sys.stdin.readline()
    if "\ufffd" in value:
        err.write(f"{args.ref}: the key holds bytes that are not text; nothing was stored\n")
        return 2
    status = store_key(args.ref, value)
    out.write(f"stored {args.ref} in the keyring ({status.backend})\n")
    return 0
