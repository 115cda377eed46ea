"""Voice on this computer: transcription's real-time factor in Parley beside faster-whisper
called directly on the same file (Parley's overhead), its word error rate on sentences spoken
by the Piper voice and by espeak-ng, the time to the first sound of ``say`` for one sentence
beside Piper called directly, the memory a loaded Whisper model takes, and the window's
longest stall while dictation transcribes (in its speech process), while it listens (the level
meter and the words so far) and while a reply is read aloud, and the time to the first words
shown while speaking.

The models are the dev extra's packaged Whisper base and Piper voice (registered as the
catalogue's); without the voice extra the section says so in one row.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import tempfile
import time
import wave
from pathlib import Path
from typing import Any

from bench.table import Row

GROUP = "voice"
SENTENCES = (
    "Parley keeps every conversation on this computer.",
    "The weather was cold, so we stayed inside and read books all afternoon.",
    "Please remind me to call the dentist before the end of the week.",
    "A good map shows the rivers, the roads and the small villages between them.",
    "She planted tomatoes, beans and sunflowers along the garden fence.",
    "The train to the coast leaves early in the morning from the old station.",
)
ESPEAK_TEXT = "Open the window in the kitchen and turn off the lights in the hall."
SAY_SENTENCE = "Your meeting with the design team starts in ten minutes."


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def word_error_rate(reference: str, heard: str) -> float:
    """Word-level edit distance over the reference's length."""
    ref, hyp = _words(reference), _words(heard)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[len(hyp)] / max(1, len(ref))


def _seconds(path: Path) -> float:
    with wave.open(str(path)) as wav:
        return wav.getnframes() / wav.getframerate()


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _in_turns(runs: int, ours: Any, theirs: Any) -> tuple[float, float]:
    """The best time of each of two pieces of work, run in turns."""
    best = [float("inf"), float("inf")]
    for _ in range(runs):
        for i, work in enumerate((ours, theirs)):
            start = time.perf_counter()
            work()
            best[i] = min(best[i], time.perf_counter() - start)
    return best[0], best[1]


def run() -> list[Row]:
    """Measure transcription and speech; one row per figure."""
    from tests.speech_models import have_speech

    if not have_speech():
        raise RuntimeError("the voice extra and the dev extra's speech models are not installed")
    import os

    from faster_whisper import WhisperModel
    from piper import PiperVoice

    from app.services.voice import speak_sentences, synthesize
    from app.services.voice.service import VoiceService
    from tests.speech_models import register_speech_models, voice_folder

    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        models = register_speech_models(folder)
        whisper = models.get(None, "whisper").path
        onnx = voice_folder() / "en_US-joe-medium.onnx"
        clip = folder / "speech.wav"
        clip.write_bytes(synthesize(" ".join(SENTENCES), onnx))
        length = _seconds(clip)
        service = VoiceService(folder)

        before = _rss()
        heard = asyncio.run(service.transcribe(clip))  # loads the model
        loaded = _rss() - before
        direct_model = WhisperModel(
            whisper, device="cpu", compute_type="int8", cpu_threads=os.cpu_count() or 1
        )

        def direct() -> str:
            segments, _ = direct_model.transcribe(str(clip), vad_filter=True, beam_size=1)
            return " ".join(s.text for s in segments)

        direct()
        # taken in turns, so a load from elsewhere on the machine weighs on both alike
        parley, peer = _in_turns(3, lambda: asyncio.run(service.transcribe(clip)), direct)
        rows.append(
            Row(GROUP, f"real-time factor, Whisper base, {length:.0f} s clip", parley / length,
                "x", peer / length, "faster-whisper directly", "< 0.3", parley / length < 0.3)
        )  # fmt: skip
        rows.append(
            Row(GROUP, "word error rate, Piper voice", 100 * word_error_rate(
                " ".join(SENTENCES), heard.text), "%")
        )  # fmt: skip
        if shutil.which("espeak-ng"):
            spoken = folder / "espeak.wav"
            subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(spoken), ESPEAK_TEXT], check=True)
            got = asyncio.run(service.transcribe(spoken))
            rows.append(
                Row(GROUP, "word error rate, espeak-ng",
                    100 * word_error_rate(ESPEAK_TEXT, got.text), "%")
            )  # fmt: skip
        rows.append(Row(GROUP, "memory, Whisper base loaded (int8)", loaded / 1e6, "MB"))

        next(iter(speak_sentences("Ready.", onnx)))  # the voice loads once

        def first_sound() -> None:
            next(iter(speak_sentences(SAY_SENTENCE, onnx)))

        voice = PiperVoice.load(str(onnx))
        next(iter(voice.synthesize("Ready.")))

        def piper_first() -> None:
            next(iter(voice.synthesize(SAY_SENTENCE)))

        ours, theirs = _in_turns(5, first_sound, piper_first)
        rows.append(
            Row(GROUP, "time to first sound of say, one sentence", ours * 1000, "ms",
                theirs * 1000, "Piper directly", "< 300 ms", ours < 0.3)
        )  # fmt: skip
        from bench.bench_window import run_child

        stalls = run_child("bench._voice_window_child", str(folder / "window"), timeout=600)
        rows.append(Row(GROUP, "window's longest stall when idle (for comparison)",
                        stalls["idle_ms"], "ms"))  # fmt: skip
        rows.append(
            Row(GROUP, "window's longest stall while dictation transcribes",
                stalls["listening_ms"], "ms", target="< 16 ms", ok=stalls["listening_ms"] < 16)
        )  # fmt: skip
        rows.append(
            Row(GROUP, "window's longest stall while listening (level meter, words so far)",
                stalls["live_ms"], "ms", target="< 16 ms", ok=stalls["live_ms"] < 16)
        )  # fmt: skip
        rows.append(
            Row(GROUP, "time to the first words while speaking", stalls["first_words_ms"], "ms",
                target="< 1000 ms", ok=0 <= stalls["first_words_ms"] < 1000)
        )  # fmt: skip
        rows.append(
            Row(GROUP, "window's longest stall while reading aloud",
                stalls["speaking_ms"], "ms", target="< 16 ms", ok=stalls["speaking_ms"] < 16)
        )  # fmt: skip
    return rows
