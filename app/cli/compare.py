"""``parley compare --model A --model B [--model C] "PROMPT"``: one question to two to four
models at once (as the window's Compare… does), each model's answer printed with its figures
(time to first token, tokens per second, tokens, cost), and the answers kept as one thread
whose answer has a version per model, the first shown."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, TextIO

__all__ = ["add_parsers", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``compare`` to the ``parley`` subcommands. ``common``'s ``--model`` names one
    model; here it is given once per model, so the other common options are its own."""
    compare = sub.add_parser(
        "compare", help="send one prompt to 2-4 models and print each answer with its figures"
    )
    compare.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,  # given before the command, it is kept
        help="where threads are stored (default: PARLEY_DATA_DIR or your user data directory)",
    )
    compare.add_argument(
        "--offline",
        action="store_true",
        default=argparse.SUPPRESS,
        help="refuse every connection to another computer (also: PARLEY_OFFLINE=1)",
    )
    compare.add_argument(
        "--model",
        action="append",
        dest="models",
        metavar="SPEC",
        default=[],
        help="a model to ask (2 to 4, each with --model): local, gguf:PATH, ollama:NAME[@URL], "
        "openai:NAME[@BASE_URL], anthropic:NAME, scripted:FILE.json",
    )
    compare.add_argument("prompt", metavar="PROMPT", help="what to ask every model")


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is ``compare``; ``None`` when it is another command."""
    if args.command != "compare":
        return None
    return asyncio.run(_compare(args, out, err))


class _Printer:
    """Prints each model's answer in the order the models were named, each as soon as it and
    the ones before it have ended."""

    def __init__(self, out: TextIO, count: int) -> None:
        self._out = out
        self._ended: dict[int, Any] = {}
        self._next = 0
        self._count = count

    def __call__(self, index: int, column: Any) -> None:
        if not column.ended or index in self._ended:
            return
        self._ended[index] = column
        while self._next in self._ended:
            self._print(self._ended[self._next])
            self._next += 1

    def _print(self, column: Any) -> None:
        out = self._out
        out.write(f"== {column.spec} ==\n")
        if column.error is not None:
            out.write(f"failed: {column.error}\n\n")
        else:
            out.write(f"{column.text.strip()}\n")
            out.write(f"({column.figures.line()})\n\n")
        out.flush()


async def _compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.cli.session import open_session
    from app.core.errors import ParleyError

    async with open_session(args.data_dir, "", interactive=False) as session:
        compare = session.workspace.compare
        try:
            specs = compare.check(args.models)
            done = await compare.compare(args.prompt, specs, on_change=_Printer(out, len(specs)))
        except ParleyError as exc:
            err.write(f"parley: {exc}\n")
            return 2
    answered = len(done.answered)
    err.write(f"(thread {done.thread_id})\n")
    if answered > 1:
        err.write(
            f"the {answered} answers are kept as versions of one answer; the first is shown "
            f"(parley threads branches {done.thread_id})\n"
        )
    return 0 if answered else 1
