"""``parley transcribe FILE`` prints what a recording says; ``parley say TEXT -o out.wav``
speaks text into a WAV file. Both run on this computer with the speech models of
``parley models`` and open no connection."""

from __future__ import annotations

import argparse
import asyncio
import math
import os
from pathlib import Path
from typing import Any, TextIO

__all__ = ["add_parsers", "run_command"]


def _speed(text: str) -> float:
    try:
        speed = float(text)
    except ValueError:
        speed = math.nan
    if not (math.isfinite(speed) and 0.25 <= speed <= 4):
        raise argparse.ArgumentTypeError(f"{text!r} is not a speed from 0.25 to 4")
    return speed


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``parley transcribe`` and ``parley say`` to the ``parley`` subcommands."""
    transcribe = sub.add_parser(
        "transcribe",
        parents=[common],
        help="print the words of a recording (on this computer)",
        description="Transcribe a recording with a Whisper model from `parley models` "
        "(--model NAME; default: the first one installed). Silence is trimmed and the "
        "language detected unless --language names it. Nothing is sent anywhere.",
    )
    transcribe.add_argument("file", help="a WAV, MP3, OGG, FLAC or M4A recording")
    transcribe.add_argument("--language", metavar="CODE", help="the language, such as en or de")
    say = sub.add_parser(
        "say",
        parents=[common],
        help="speak text into a WAV file (on this computer)",
        description="Speak TEXT with a Piper voice from `parley models` into a WAV file.",
    )
    say.add_argument("text")
    say.add_argument(
        "-o",
        "--output",
        default="speech.wav",
        metavar="FILE",
        help="the WAV file to write (default: speech.wav here)",
    )
    say.add_argument("--voice", metavar="NAME", help="a voice from `parley models`")
    say.add_argument(
        "--speed", type=_speed, default=1.0, help="how fast, from 0.25 to 4 (default 1)"
    )


def _engine(kind: str) -> None:
    """Say first when this build has no speech engine for ``kind``."""
    from app.services.voice import NoSpeechEngine, engine_missing

    if (missing := engine_missing(kind)) is not None:
        raise NoSpeechEngine(missing)


def _transcribe(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.models.speech import SpeechModels
    from app.services.voice import transcribe

    _engine("whisper")
    model = SpeechModels(args.data_dir).get(args.model, "whisper")
    heard = asyncio.run(transcribe(Path(args.file).expanduser(), model.path, args.language))
    if not heard.text:
        err.write(f"{Path(args.file).name}: no speech was heard\n")
        return 1
    if args.language is None:
        err.write(f"(language: {heard.language})\n")
    out.write(heard.text + "\n")
    return 0


def _say(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.core.errors import UserError
    from app.services.models.speech import SpeechModels
    from app.services.voice import say

    target = Path(args.output).expanduser()
    if target.is_dir():
        raise UserError(f"{target} is a folder; give the name of a .wav file to write.")
    _engine("voice")
    voice = SpeechModels(args.data_dir).get(args.voice, "voice")
    data = asyncio.run(say(args.text, voice.voice_file, args.speed))
    partial = target.with_name(target.name + ".part")
    try:
        partial.write_bytes(data)
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise UserError(f"Could not write {target}: {exc.strerror or exc}.") from None
    err.write(f"wrote {target} ({len(data):,} bytes)\n")
    return 0


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``parley transcribe`` or ``parley say``; ``None`` for another command."""
    if args.command == "transcribe":
        return _transcribe(args, out, err)
    if args.command == "say":
        return _say(args, out, err)
    return None
