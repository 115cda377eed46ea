"""The workspace's voice: which speech models are installed, transcription of recordings (an
attached clip's transcript) and speech, all on this computer."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from app.core.errors import UserError
from app.services.models.speech import SpeechModels
from app.services.voice.engine import NoSpeechEngine, Transcript, engine_missing, say, transcribe
from app.services.voice.worker import SpeechWorker

__all__ = ["VoiceService"]


class VoiceService:
    """Speech models of one data directory and the engines that run them."""

    def __init__(self, data_dir: str | os.PathLike[str] | None) -> None:
        self.models = SpeechModels(data_dir)
        self.worker = SpeechWorker()
        """Dictation's Whisper, in a process of its own (started on first use)."""

    def _whisper_folder(self, model: str | None) -> str:
        if (missing := engine_missing("whisper")) is not None:
            raise NoSpeechEngine(missing)
        return self.models.get(model, "whisper").path

    async def can_transcribe(self) -> bool:
        """Whether a recording can be transcribed now (an engine and a Whisper model)."""
        try:
            await asyncio.to_thread(self._whisper_folder, None)
        except UserError:
            return False
        return True

    async def transcribe(
        self,
        source: str | os.PathLike[str] | bytes,
        model: str | None = None,
        language: str | None = None,
    ) -> Transcript:
        """What ``source`` (a recording's path or bytes) says, with Whisper ``model`` (default:
        the first installed); raises :class:`UserError` with the reason when it cannot."""
        folder = await asyncio.to_thread(self._whisper_folder, model)
        return await transcribe(source, folder, language)

    async def prepare_dictation(self, model: str | None = None) -> None:
        """Start dictation's speech process and load its model, while the user speaks."""
        folder = await asyncio.to_thread(self._whisper_folder, model)
        await self.worker.load(folder)

    async def dictate(
        self, wav: bytes, model: str | None = None, language: str | None = None
    ) -> Transcript:
        """What a dictated recording (a WAV file's bytes) says, transcribed in the speech
        process so the window is not held; raises :class:`UserError` when it cannot."""
        folder = await asyncio.to_thread(self._whisper_folder, model)
        return await self.worker.transcribe(wav, folder, language)

    async def dictated_so_far(
        self, pcm: bytes, model: str | None = None, language: str | None = None
    ) -> Transcript:
        """The words so far of a dictation still being recorded (16-bit mono PCM at 16 kHz):
        a quicker, rougher pass than :meth:`dictate`'s, in the same speech process."""
        folder = await asyncio.to_thread(self._whisper_folder, model)
        return await self.worker.recognise_so_far(pcm, folder, language)

    async def aclose(self) -> None:
        """End the speech process, if one was started."""
        await self.worker.aclose()

    async def say(self, text: str, voice: str | None = None, speed: float = 1.0) -> bytes:
        """``text`` spoken by ``voice`` (default: the first installed), as a WAV file's bytes."""
        if (missing := engine_missing("voice")) is not None:
            raise NoSpeechEngine(missing)
        installed = await asyncio.to_thread(self.models.get, voice, "voice")
        onnx: Path = await asyncio.to_thread(lambda: installed.voice_file)
        return await say(text, onnx, speed)
