"""Dictated sound: where it comes from (a :class:`Recorder`; the microphone through Qt
Multimedia), its WAV form, and how loud its last moment is (the level meter's value)."""

from __future__ import annotations

import io
import math
import wave
from typing import Any, Protocol

from app.services.voice.engine import RATE

__all__ = ["RATE", "MicrophoneRecorder", "Recorder", "level_of", "pcm_of", "wav_bytes"]

LEVEL_WINDOW = RATE // 10
"""The samples the level is taken over: the last tenth of a second."""
FLOOR_DB = -60.0


class Recorder(Protocol):
    """Where dictated sound comes from."""

    def start(self) -> str | None:
        """Begin recording; a sentence saying why it cannot, else None."""

    def heard(self) -> bytes:
        """What was recorded so far: 16-bit mono PCM at :data:`RATE`."""

    def stop(self) -> bytes:
        """End recording; the sound as a WAV file's bytes."""

    def cancel(self) -> None:
        """End recording and drop the sound."""


def wav_bytes(pcm: bytes, rate: int = RATE) -> bytes:
    """16-bit mono PCM at ``rate`` as a WAV file's bytes."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)
    return out.getvalue()


def pcm_of(wav: bytes) -> bytes:
    """The frames of a WAV file made by :func:`wav_bytes` (none when it is not one)."""
    try:
        with wave.open(io.BytesIO(wav)) as read:
            return bytes(read.readframes(read.getnframes()))
    except (wave.Error, EOFError):
        return b""


def level_of(pcm: bytes) -> float:
    """How loud the last tenth of a second of ``pcm`` is, from 0 (silence, or below -60 dBFS)
    to 1 (full scale): its RMS in decibels, spread over that range."""
    import numpy as np

    tail = pcm[-2 * LEVEL_WINDOW :]
    tail = tail[: len(tail) // 2 * 2]
    if not tail:
        return 0.0
    samples = np.frombuffer(tail, dtype="<i2").astype(np.float32) / 32768.0
    rms = float(np.sqrt(np.mean(samples * samples)))
    if rms <= 0.0:
        return 0.0
    return min(1.0, max(0.0, (20 * math.log10(rms) - FLOOR_DB) / -FLOOR_DB))


class MicrophoneRecorder:
    """The default microphone through Qt Multimedia, 16 kHz mono 16-bit."""

    def __init__(self) -> None:
        self._source: Any = None
        self._device: Any = None
        self._pcm = bytearray()

    def start(self) -> str | None:
        """Open the default microphone; a sentence when there is none or it is refused."""
        from PySide6.QtMultimedia import QAudio, QAudioFormat, QAudioSource, QMediaDevices

        device = QMediaDevices.defaultAudioInput()
        if device.isNull():
            return "No microphone was found; connect one (or allow Parley to use it) and try again."
        fmt = QAudioFormat()
        fmt.setSampleRate(RATE)
        fmt.setChannelCount(1)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        self._pcm.clear()
        self._source = QAudioSource(device, fmt)
        self._device = self._source.start()
        if self._source.error() != QAudio.Error.NoError or self._device is None:
            self._source = None
            return "The microphone could not be opened; check that Parley may use it."
        self._device.readyRead.connect(self._read)
        return None

    def _read(self) -> None:
        if self._device is not None:
            self._pcm += bytes(self._device.readAll().data())

    def heard(self) -> bytes:
        """What the microphone heard so far."""
        self._read()
        return bytes(self._pcm)

    def stop(self) -> bytes:
        """Close the microphone; what it heard, as WAV."""
        self._read()
        self.cancel()
        return wav_bytes(bytes(self._pcm))

    def cancel(self) -> None:
        """Close the microphone."""
        if self._source is not None:
            self._source.stop()
        self._source = self._device = None
