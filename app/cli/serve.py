"""``parley serve``: Parley's models behind OpenAI- and Anthropic-compatible APIs on this
computer, and ``parley serve keys add|list|remove`` for the keys its clients send."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, TextIO

__all__ = ["add_parsers", "run_command"]

DEFAULT_PORT = 8765


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (a whole number up to 65535)")
    return int(text)


def _tokens(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of tokens (at least 1)")
    return int(text)


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``serve`` to the ``parley`` subcommands."""
    serve = sub.add_parser(
        "serve",
        parents=[common],
        help="serve your models on OpenAI- and Anthropic-compatible APIs (keys: parley serve keys)",
        description="Serve Parley's models at http://HOST:PORT/v1 to clients holding a key. "
        "Only this computer can connect unless --host names another address.",
    )
    serve.add_argument("--port", type=_port, default=DEFAULT_PORT, help="default: 8765")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default: 127.0.0.1, this computer only)",
    )
    actions = serve.add_subparsers(dest="serve_action")
    keys = actions.add_parser(
        "keys", parents=[common], help="the keys clients send: add, list, remove"
    )
    keys.add_argument("keys_action", choices=["add", "list", "remove"])
    keys.add_argument("name", nargs="?", help="the key's name, e.g. ci-bot")
    keys.add_argument(
        "--daily-tokens",
        type=_tokens,
        metavar="N",
        help="add: the tokens (in and out) the key may use a day; once used, its requests are "
        "refused until local midnight",
    )
    keys.add_argument(
        "--no-threads",
        action="store_true",
        help="add: an agent's run asked with this key is not kept as a thread (by default each "
        "is, marked API in the window's sidebar)",
    )


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``parley serve ...`` if ``args.command`` is ``serve``; ``None`` when it is
    another command."""
    if args.command != "serve":
        return None
    if args.serve_action == "keys":
        return _keys(args, out, err)
    return asyncio.run(_serve(args, out, err))


def _keys(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.key_usage import KeyUsage
    from app.services.server_keys import ServerKeys

    keys = ServerKeys(args.data_dir)
    if args.keys_action == "list":
        listed = keys.listed()
        if not listed:
            out.write("no keys yet; make one with: parley serve keys add NAME\n")
        today = KeyUsage(args.data_dir, keys).today()
        for key in listed:
            used = today.get(key.name, 0)
            kept = "" if key.keep_threads else "; keeps no threads"
            if key.daily_tokens is None:
                out.write(f"{key.name}: {used:,} tokens used today (no daily limit){kept}\n")
            else:
                out.write(f"{key.name}: {used:,} of {key.daily_tokens:,} tokens used today{kept}\n")
        return 0
    if args.daily_tokens is not None and args.keys_action != "add":
        err.write("--daily-tokens goes with parley serve keys add\n")
        return 2
    if args.no_threads and args.keys_action != "add":
        err.write("--no-threads goes with parley serve keys add\n")
        return 2
    if not args.name:
        err.write(f"parley serve keys {args.keys_action} needs a name, e.g. ci-bot\n")
        return 2
    if args.keys_action == "remove":
        if not keys.remove(args.name):
            err.write(f"there is no key called {args.name}\n")
            return 1
        out.write(f"removed {args.name}: it no longer works\n")
        return 0
    made = keys.add(args.name, args.daily_tokens, keep_threads=not args.no_threads)
    out.write(f"{made}\n")
    err.write(
        f"This is key {args.name}; it is shown only now. Clients send it as "
        "Authorization: Bearer KEY.\n"
    )
    return 0


async def _serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.server.run import ParleyServer, is_loopback, listen, workspace_models
    from app.services.key_usage import KeyUsage
    from app.services.server_keys import ServerKeys

    keys = ServerKeys(args.data_dir)
    has_keys = bool(await asyncio.to_thread(keys.listed))
    if not is_loopback(args.host):
        if not has_keys:
            err.write(
                f"parley: serving on {args.host} lets other computers connect, so it needs a "
                "key first: parley serve keys add NAME\n"
            )
            return 2
        err.write(
            f"Warning: serving on {args.host}: other computers that reach this address can "
            "use your models with a key.\n"
        )
    try:
        sock = listen(args.host, args.port)
    except OSError as exc:
        err.write(f"parley: cannot listen on {args.host} port {args.port}: {exc.strerror or exc}\n")
        return 2
    with sock:
        async with workspace_models(args.data_dir, getattr(args, "model", None)) as opened:
            server = ParleyServer(
                opened.models,
                keys.check,
                network=opened.network,
                limits=KeyUsage(args.data_dir, keys),
            )
            host, port = sock.getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            out.write(
                f"Parley serves the OpenAI and Anthropic APIs at http://{shown}:{port}/v1 "
                "(Ctrl+C stops it)\n"
            )
            if not has_keys:
                out.write(
                    "No key exists yet, so every request is refused: parley serve keys add NAME\n"
                )
            out.flush()
            await server.serve(sock)
    return 0
