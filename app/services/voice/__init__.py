"""Voice, on this computer both ways: speech to text with Whisper (faster-whisper) and text to
speech with Piper, each run off the event loop; no audio leaves the machine."""

from app.services.voice.engine import (
    NoSpeechEngine,
    SpeechChunk,
    Transcript,
    engine_missing,
    say,
    speak_sentences,
    synthesize,
    transcribe,
    transcribe_file,
)

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
