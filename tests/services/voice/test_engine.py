"""The speech engines on real speech: the Piper voice speaks a sentence into a WAV file,
Whisper gives its words back (and espeak-ng's, where it is installed); what cannot be heard
or said is one sentence."""

from __future__ import annotations

import asyncio
import io
import shutil
import subprocess
import threading
import wave
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.services.voice import say, synthesize, transcribe, transcribe_file
from tests.speech_models import needs_speech, voice_folder, whisper_folder

pytestmark = needs_speech

SENTENCE = "The quick brown fox jumps over the lazy dog."


def _voice() -> Path:
    return voice_folder() / "en_US-joe-medium.onnx"


def test_a_spoken_sentence_is_a_valid_wav_whose_words_come_back() -> None:
    data = synthesize(SENTENCE, _voice())
    with wave.open(io.BytesIO(data)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22050)
        assert 1.0 < wav.getnframes() / wav.getframerate() < 10.0
    heard = transcribe_file(data, whisper_folder())
    words = heard.text.lower()
    for word in ("quick", "brown", "fox", "jumps", "lazy", "dog"):
        assert word in words, heard.text
    assert heard.language == "en"


def test_a_recording_as_the_microphone_makes_it_is_read_directly(tmp_path: Path) -> None:
    import numpy as np
    from faster_whisper.audio import decode_audio

    from app.services.voice.engine import _plain_wav

    spoken = synthesize("Turn the heating down before we leave the house.", _voice())
    samples = decode_audio(io.BytesIO(spoken), sampling_rate=16_000)
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    clip = tmp_path / "mic.wav"
    with wave.open(str(clip), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16_000)
        wav.writeframes(pcm)
    direct = _plain_wav(clip.read_bytes())
    assert direct is not None and len(direct) == len(samples)
    assert _plain_wav(spoken) is None  # 22,050 Hz: the general decoder reads it
    heard = transcribe_file(clip, whisper_folder()).text.lower()
    assert "heating" in heard and "house" in heard, heard


def test_a_slower_speed_makes_a_longer_clip() -> None:
    def seconds(data: bytes) -> float:
        with wave.open(io.BytesIO(data)) as wav:
            return wav.getnframes() / wav.getframerate()

    assert seconds(synthesize("Good morning.", _voice(), 0.5)) > seconds(
        synthesize("Good morning.", _voice(), 1.0)
    )


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")
def test_a_sentence_spoken_by_espeak_is_transcribed_with_its_language(tmp_path: Path) -> None:
    clip = tmp_path / "espeak.wav"
    subprocess.run(
        [
            "espeak-ng",
            "-v",
            "en-us",
            "-s",
            "140",
            "-w",
            str(clip),
            "Please open the kitchen window.",
        ],
        check=True,
    )
    heard = transcribe_file(clip, whisper_folder())
    words = heard.text.lower()
    assert "kitchen" in words and "window" in words, heard.text
    assert heard.language == "en"


def test_silence_around_speech_is_trimmed_and_a_silent_clip_gives_no_words(tmp_path: Path) -> None:
    speech = synthesize("Please call me tomorrow about the garden party.", _voice())
    with wave.open(io.BytesIO(speech)) as wav:
        rate, frames = wav.getframerate(), wav.readframes(wav.getnframes())
    silence = b"\0\0" * rate * 5
    padded = tmp_path / "padded.wav"
    with wave.open(str(padded), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(silence + frames + silence)
    heard = transcribe_file(padded, whisper_folder(), "en").text.lower()
    assert "tomorrow" in heard and "garden" in heard, heard
    quiet = tmp_path / "quiet.wav"
    with wave.open(str(quiet), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(silence)
    assert transcribe_file(quiet, whisper_folder(), "en").text == ""


async def test_transcription_runs_off_the_event_loop() -> None:
    data = synthesize("The library opens again on Monday morning.", _voice())
    ticks = 0
    stop = threading.Event()

    async def tick() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    heard = await transcribe(data, whisper_folder())
    stop.set()
    await ticker
    assert "library" in heard.text.lower(), heard.text
    assert ticks > 3  # the loop kept turning while the model worked
    assert (await say("Yes.", _voice()))[:4] == b"RIFF"


def test_a_file_that_is_not_a_recording_is_one_sentence(tmp_path: Path) -> None:
    junk = tmp_path / "notes.wav"
    junk.write_text("this is not sound at all")
    with pytest.raises(UserError) as err:
        transcribe_file(junk, whisper_folder())
    assert str(err.value).startswith("notes.wav is not a recording Parley can read")
    assert junk.read_text() == "this is not sound at all"
    with pytest.raises(UserError, match="is not a file"):
        transcribe_file(tmp_path / "missing.wav", whisper_folder())


def test_an_unknown_language_and_a_wrong_speed_are_one_sentence() -> None:
    with pytest.raises(UserError, match="'klingon' is not a language Whisper knows"):
        transcribe_file(b"RIFF", whisper_folder(), "klingon")
    with pytest.raises(UserError, match="A speed of 9 is out of range"):
        synthesize("Hello.", _voice(), 9)
    with pytest.raises(UserError, match="nothing to say"):
        synthesize("   ", _voice())
