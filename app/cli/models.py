"""``parley models``: list the catalogue and installed models, download, remove, add a file."""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from app.services.models.downloads import Progress

__all__ = ["add_parsers", "run_command"]


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``parley models`` to the ``parley`` subcommands."""
    models = sub.add_parser(
        "models",
        parents=[common],
        help="local models (chat and speech): list, download NAME, remove NAME, add PATH",
        description="With no action, list the catalogue and the installed models. Only "
        "'download' connects to the internet.",
    )
    actions = models.add_subparsers(dest="models_action")
    actions.add_parser(
        "list", parents=[common], help="list the catalogue and installed models (the default)"
    )
    download = actions.add_parser("download", parents=[common], help="download a catalogue model")
    download.add_argument("name")
    download.add_argument(
        "--deadline",
        type=_seconds,
        metavar="SECONDS",
        help="give up after this long, keeping the bytes so far (default: the model's size "
        "at 250 kB/s, at least 30 minutes)",
    )
    remove = actions.add_parser("remove", parents=[common], help="remove an installed model")
    remove.add_argument("name")
    add = actions.add_parser("add", parents=[common], help="add a GGUF file from your disk")
    add.add_argument("path")
    add.add_argument("--name", help="the name to list it under (default: the file's name)")


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return seconds


class _ProgressLine:
    """Prints download progress on one line of ``err``, at most once per percent."""

    def __init__(self, err: TextIO, label: str) -> None:
        self.err = err
        self.label = label
        self.last = -1
        self.tty = err.isatty()

    def __call__(self, p: Progress) -> None:
        from app.text.sizes import rough_size

        pct = int(100 * (p.fraction or 0))
        if pct == self.last or (not self.tty and pct % 10 and pct != 100):
            return
        self.last = pct
        total = rough_size(p.total) if p.total else "?"
        self.err.write(f"{self.label}: {pct:3d}% of {total}")
        if self.tty and pct < 100:  # back to the line's start, to write the next percent over it
            getattr(self.err, "write_control", self.err.write)("\r")
        else:
            self.err.write("\n")
        self.err.flush()


def _status(row: Any, installed: Callable[[Any], str]) -> str:
    """A listed model's status: installed (as ``installed`` says it), unfinished with the
    bytes so far, or not downloaded."""
    from app.text.sizes import rough_size

    if row.installed is not None:
        return installed(row.installed)
    if row.partial_bytes:
        return f"unfinished ({rough_size(row.partial_bytes)}); download again to resume"
    return "not downloaded"


def _list(library: Any, out: TextIO) -> int:
    from app.text.sizes import rough_size

    out.write(f"{'NAME':<16}{'SIZE':>9}{'RAM':>8}  {'TOOLS':<6}{'LICENCE':<29}STATUS\n")
    for row in library.listing():
        status = _status(row, lambda kept: f"installed: --model {kept.spec}")
        if row.entry is not None:
            e = row.entry
            out.write(
                f"{e.name:<16}{rough_size(e.size_bytes):>9}{rough_size(e.ram_bytes):>8}  "
                f"{e.tool_calls if e.kind == 'chat' else 'embed':<6}{e.licence:<29}{status}\n"
            )
        else:
            size = rough_size(row.installed.size_bytes)
            out.write(f"{row.name:<16}{size:>9}{'':>8}  {'':<6}{'(added file)':<29}{status}\n")
    return 0


def _list_speech(speech: Any, out: TextIO) -> None:
    from app.text.sizes import rough_size

    out.write(f"\n{'SPEECH':<18}{'SIZE':>9}{'RAM':>8}  {'KIND':<9}{'LICENCE':<9}STATUS\n")
    for row in speech.listing():
        status = _status(row, lambda kept: f"installed ({kept.path})")
        e = row.entry
        if e is None:
            out.write(f"{row.name:<18}{'':>9}{'':>8}  {row.installed.kind:<9}{'':<9}{status}\n")
            continue
        kind = "hears" if e.kind == "whisper" else "speaks"
        out.write(
            f"{e.name:<18}{rough_size(e.size_bytes):>9}{rough_size(e.ram_bytes):>8}  "
            f"{kind:<9}{e.licence:<9}{status}\n"
        )


def _download_speech(speech: Any, name: str, out: TextIO, err: TextIO) -> int:
    """Download speech model ``name``, its progress on ``err``."""
    entry = speech.entry(name)
    err.write(f"Downloading {entry.title} from {entry.url(entry.files[0], speech.hub_url)}\n")
    model = asyncio.run(speech.download(name, _ProgressLine(err, name)))
    if model.kind == "whisper":
        out.write(f"installed {model.name}: parley transcribe FILE --model {model.name}\n")
    else:
        out.write(f'installed {model.name}: parley say "..." -o out.wav --voice {model.name}\n')
    return 0


def _download(library: Any, name: str, out: TextIO, err: TextIO) -> int:
    """Download catalogue model ``name``, its progress on ``err``, and say how to use it."""
    entry = library.entry(name)
    err.write(f"Downloading {entry.title} from {entry.url(library.hub_url)}\n")
    model = asyncio.run(library.download(name, _ProgressLine(err, name)))
    if entry.kind == "embedding":
        out.write(f"installed {model.name}: parley knowledge meaning {model.name}\n")
    else:
        out.write(f'installed {model.name}: parley chat --model {model.spec} "..."\n')
    return 0


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``parley models ...`` if ``args.command`` is ``models``; ``None`` when it is
    another command."""
    from app.services.models.catalogue import ModelLibrary
    from app.services.models.speech import SpeechModels

    if args.command != "models":
        return None
    library = ModelLibrary(args.data_dir, deadline=getattr(args, "deadline", None))
    speech = SpeechModels(args.data_dir, deadline=getattr(args, "deadline", None))
    action = args.models_action or "list"
    if action == "list":
        _list(library, out)
        _list_speech(speech, out)
        return 0
    speech_names = {row.name for row in speech.listing()}
    if action == "download":
        if args.name in speech.names():
            return _download_speech(speech, args.name, out, err)
        if all(e.name != args.name for e in library.catalogue):
            from app.core.errors import UserError

            names = ", ".join([*(e.name for e in library.catalogue), *sorted(speech.names())])
            raise UserError(
                f"There is no model {args.name!r} in the catalogue; choose one of: {names}."
            )
        return _download(library, args.name, out, err)
    if action == "remove" and args.name in speech_names:
        speech.remove(args.name)
        out.write(f"removed {args.name}\n")
        return 0
    if action == "remove":
        model = library.remove(args.name)
        kept = " (the file itself was left where it is)" if model.source == "local" else ""
        out.write(f"removed {args.name}{kept}\n")
        return 0
    model = library.add(args.path, args.name)
    out.write(f'added {model.name}: parley chat --model {model.spec} "..."\n')
    return 0
