"""Dictation's Whisper in a process of its own: the words come back, the process is started
once and reused (the words so far too), a bad recording is one sentence and leaves it
running, one that dies mid-way is one sentence and the next use starts a new one, and closing
ends it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.services.voice import synthesize
from app.services.voice.partial import RATE
from app.services.voice.service import VoiceService
from app.services.voice.worker import STOPPED, SpeechProcessStopped
from tests.speech_models import (
    as_microphone,
    needs_speech,
    register_speech_models,
    voice_folder,
)

pytestmark = needs_speech


def _speech(text: str) -> bytes:
    return synthesize(text, voice_folder() / "en_US-joe-medium.onnx")


async def test_dictation_is_transcribed_in_one_reused_process_that_closing_ends(
    tmp_path: Path,
) -> None:
    register_speech_models(tmp_path)
    voice = VoiceService(tmp_path)
    try:
        assert voice.worker.process is None  # nothing starts before it is used
        heard = await voice.dictate(_speech("The garden needs water every evening in summer."))
        assert "garden" in heard.text.lower() and "water" in heard.text.lower()
        assert heard.language == "en"
        first = voice.worker.process
        assert first is not None and first.pid != os.getpid()
        again = await voice.dictate(_speech("Call the plumber on Monday."))
        assert "plumber" in again.text.lower()
        assert voice.worker.process is first

        # the words so far, from the microphone's samples
        pcm = as_microphone(_speech("Please remember to buy fresh bread at the bakery tomorrow."))
        start = await voice.dictated_so_far(pcm[: 2 * RATE * 2])  # its first two seconds
        assert "remember" in start.text.lower() and "tomorrow" not in start.text.lower()
        assert start.language == "en" and start.duration_s == 2.0
        whole = await voice.dictated_so_far(pcm)
        assert "bread" in whole.text.lower() and "bakery" in whole.text.lower()
        assert (await voice.dictated_so_far(bytes(RATE * 2))).text == ""  # silence
        # longer than one of Whisper's windows: heard whole
        long = await voice.dictated_so_far(pcm * (1 + 31 * RATE * 2 // len(pcm)))
        assert long.text.lower().count("bakery") >= 2 and long.duration_s > 31
        assert voice.worker.process is first

        with pytest.raises(UserError, match="is not a recording Parley can read"):
            await voice.dictate(b"RIFF\x00\x00 this is no sound")
        assert voice.worker.process is first and first.is_alive()
    finally:
        await voice.aclose()
    assert not first.is_alive() and voice.worker.process is None


async def test_a_process_that_dies_is_one_sentence_and_the_next_use_starts_another(
    tmp_path: Path,
) -> None:
    register_speech_models(tmp_path)
    voice = VoiceService(tmp_path)
    try:
        await voice.prepare_dictation()
        doomed = voice.worker.process
        assert doomed is not None
        clip = _speech("Remember the umbrella because rain is coming this afternoon. " * 4)
        work = asyncio.ensure_future(voice.dictate(clip))
        for _ in range(1000):  # until the request is under way
            if voice.worker.busy:
                break
            await asyncio.sleep(0.01)
        doomed.kill()
        with pytest.raises(SpeechProcessStopped) as stopped:
            await work
        assert str(stopped.value) == STOPPED
        heard = await voice.dictate(clip)
        assert "umbrella" in heard.text.lower()
        assert voice.worker.process is not None and voice.worker.process.pid != doomed.pid
    finally:
        await voice.aclose()
