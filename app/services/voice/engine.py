"""The speech engines: Whisper through faster-whisper (CTranslate2, on the CPU) for speech to
text, Piper (ONNX) for text to speech. Both are optional packages (the ``voice`` extra); a
build without them says so in one sentence (:func:`engine_missing`).

Models load once per folder and are kept; each call runs in a worker thread, so the event loop
never waits on a model. Transcription trims silence with voice-activity detection and detects
the language unless one is given. Nothing here opens a connection: models are read from folders
on disk only.
"""

from __future__ import annotations

import asyncio
import importlib.util
import io
import os
import sys
import threading
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.core.errors import UserError

__all__ = [
    "NoSpeechEngine",
    "SpeechChunk",
    "Transcript",
    "engine_missing",
    "say",
    "speak_sentences",
    "synthesize",
    "transcribe",
    "transcribe_file",
]

RATE = 16_000
"""Whisper's sample rate, at which dictation records (16-bit mono)."""

_ENGINES = {"whisper": ("faster_whisper", "transcribe"), "voice": ("piper", "speak")}
MAX_SPEED = 4.0
MIN_SPEED = 0.25


class NoSpeechEngine(UserError):
    """This build of Parley has no speech engine for what was asked."""


def engine_missing(kind: str) -> str | None:
    """One sentence when the engine for ``kind`` ("whisper" or "voice") is not installed."""
    module, verb = _ENGINES[kind]
    try:
        if importlib.util.find_spec(module) is not None:
            return None
    except (ImportError, ValueError):  # a broken or half-removed install: none to use
        pass
    if getattr(sys, "frozen", False):
        return (
            f"This build of Parley has no speech engine, so it cannot {verb}; run Parley "
            "from source with its voice extra (pip install '.[voice]' in its folder) to use voice."
        )
    return (
        f"Parley cannot {verb} here: its speech engine is not installed; install it with "
        "pip install '.[voice]' in Parley's folder (make run does this)."
    )


def _require(kind: str) -> None:
    missing = engine_missing(kind)
    if missing is not None:
        raise NoSpeechEngine(missing)


@dataclass(frozen=True)
class Transcript:
    """What was said: the text, the language (given or detected) and the clip's length."""

    text: str
    language: str
    language_probability: float
    duration_s: float


class _Whisper:
    """One loaded Whisper model; one transcription at a time."""

    def __init__(self, folder: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a folder on disk; never the hub
        from faster_whisper import WhisperModel

        self.lock = threading.Lock()
        self.model: Any = WhisperModel(
            folder, device="cpu", compute_type="int8", cpu_threads=os.cpu_count() or 1
        )


@lru_cache(maxsize=2)
def _whisper(folder: str) -> _Whisper:
    return _Whisper(folder)


def _languages() -> frozenset[str]:
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    return frozenset(_LANGUAGE_CODES)


def transcribe_file(
    source: str | os.PathLike[str] | bytes,
    model_dir: str | os.PathLike[str],
    language: str | None = None,
) -> Transcript:
    """Transcribe a sound file (a path, or its bytes) with the Whisper model in ``model_dir``
    (blocking: call :func:`transcribe` from the event loop)."""
    _require("whisper")
    if language is not None and language not in _languages():
        raise UserError(
            f"{language!r} is not a language Whisper knows; give a code such as en, de or fr, "
            "or leave --language out to detect it."
        )
    name = "the recording" if isinstance(source, bytes) else Path(source).name
    audio: Any = io.BytesIO(source) if isinstance(source, bytes) else str(source)
    if not isinstance(source, bytes) and not Path(source).is_file():
        raise UserError(f"{source} is not a file; give the path of a recording.")
    from faster_whisper.audio import decode_audio

    try:
        samples = _plain_wav(source)
        if samples is None:
            samples = decode_audio(audio)
    except Exception as exc:  # the decoder's errors are many and unrelated
        raise UserError(
            f"{name} is not a recording Parley can read ({type(exc).__name__}); give a WAV, "
            "MP3, OGG, FLAC or M4A file."
        ) from None
    whisper = _whisper(str(Path(model_dir)))
    with whisper.lock:
        segments, info = whisper.model.transcribe(
            samples, language=language, vad_filter=True, beam_size=1
        )
        text = " ".join(s.text.strip() for s in segments).strip()
    return Transcript(text, info.language, float(info.language_probability), float(info.duration))


def _plain_wav(source: str | os.PathLike[str] | bytes) -> Any:
    """The samples of a 16 kHz mono 16-bit WAV (what dictation records), read directly:
    the general decoder holds the interpreter for tens of milliseconds at a time, which
    stalls the window; None for any other file."""
    import numpy as np

    try:
        where: Any = io.BytesIO(source) if isinstance(source, bytes) else str(source)
        with wave.open(where) as wav:
            if (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) != (1, 2, RATE):
                return None
            pcm = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError):
        return None
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


async def transcribe(
    source: str | os.PathLike[str] | bytes,
    model_dir: str | os.PathLike[str],
    language: str | None = None,
) -> Transcript:
    """:func:`transcribe_file` in a worker thread."""
    return await asyncio.to_thread(transcribe_file, source, model_dir, language)


@lru_cache(maxsize=2)
def _voice(path: str) -> Any:
    from piper import PiperVoice

    return PiperVoice.load(path)


def _config(speed: float) -> Any:
    from piper import SynthesisConfig

    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise UserError(f"A speed of {speed:g} is out of range; give one from 0.25 to 4.")
    return SynthesisConfig(length_scale=1.0 / speed)


@dataclass(frozen=True)
class SpeechChunk:
    """One sentence's sound: 16-bit mono PCM at ``sample_rate``."""

    pcm: bytes
    sample_rate: int


def speak_sentences(
    text: str, voice_file: str | os.PathLike[str], speed: float = 1.0
) -> Iterator[SpeechChunk]:
    """The sound of ``text``, one sentence at a time as each is ready (blocking)."""
    _require("voice")
    if not text.strip():
        raise UserError("There is nothing to say: the text is empty.")
    config = _config(speed)
    voice = _voice(str(Path(voice_file)))
    for chunk in voice.synthesize(text, config):
        yield SpeechChunk(chunk.audio_int16_bytes, int(chunk.sample_rate))


def synthesize(text: str, voice_file: str | os.PathLike[str], speed: float = 1.0) -> bytes:
    """``text`` spoken by the Piper voice ``voice_file``, as the bytes of a WAV file
    (blocking: call :func:`say` from the event loop)."""
    chunks = list(speak_sentences(text, voice_file, speed))
    if not chunks:
        raise UserError("The voice made no sound for that text; give words to say.")
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(chunks[0].sample_rate)
        for chunk in chunks:
            wav.writeframes(chunk.pcm)
    return out.getvalue()


async def say(text: str, voice_file: str | os.PathLike[str], speed: float = 1.0) -> bytes:
    """:func:`synthesize` in a worker thread."""
    return await asyncio.to_thread(synthesize, text, voice_file, speed)
