"""Whisper in a process of its own: transcription holds that process's interpreter, not the
window's, so the window stays smooth while dictation is transcribed.

The process is one of Parley's children (:func:`app.core.child_process.start_child`, running
:func:`serve`): it starts on first use, is reused, ends with :meth:`SpeechWorker.aclose` (and
by itself when Parley ends, however it ends). One that dies mid-way raises
:class:`SpeechProcessStopped`, one sentence, and the next use starts a new one. Requests go
one at a time; the wait for an answer is a blocked read in a worker thread, which holds no
interpreter lock.

A request is a dict: ``{"op": "load", "model_dir": ...}``, ``{"op": "transcribe",
"model_dir": ..., "language": ..., "wav": BYTES}`` or ``{"op": "partial", "model_dir": ...,
"language": ..., "pcm": BYTES}`` (the words so far, from the microphone's own samples); an
answer is ``{"ok": True, ...}`` with the transcript's fields or ``{"ok": False, "error":
SENTENCE}``.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from app.core.child_process import Child, start_child
from app.core.errors import UserError
from app.services.voice.engine import Transcript

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["STOPPED", "SpeechProcessStopped", "SpeechWorker", "serve"]

STOPPED = "The speech process stopped before it finished; it starts again on the next use."
NOT_STARTED = "The speech process could not be started, so nothing can be transcribed now."


class SpeechProcessStopped(UserError):
    """The speech process ended (or was ended) before it answered."""


def _handle(request: Any) -> dict[str, Any]:
    from app.services.voice.engine import RATE, _whisper, transcribe_file
    from app.services.voice.partial import recognise_so_far

    if not isinstance(request, dict) or not isinstance(request.get("model_dir"), str):
        return {"ok": False, "error": "The speech process got a request it cannot read."}
    language = request.get("language")
    try:
        if request.get("op") == "load":
            _whisper(request["model_dir"])
            recognise_so_far(bytes(RATE // 2), request["model_dir"], "en")  # warms the pass
            return {"ok": True}
        sound = request.get("pcm" if request.get("op") == "partial" else "wav")
        if not isinstance(sound, bytes) or not (language is None or isinstance(language, str)):
            return {"ok": False, "error": "The speech process got a request it cannot read."}
        if request.get("op") == "partial":
            heard = recognise_so_far(sound, request["model_dir"], language)
        else:
            heard = transcribe_file(sound, request["model_dir"], language)
    except UserError as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:  # the engine's failures are many; each is one sentence here
        return {
            "ok": False,
            "error": f"The recording could not be transcribed ({type(exc).__name__}).",
        }
    return {
        "ok": True,
        "text": heard.text,
        "language": heard.language,
        "language_probability": heard.language_probability,
        "duration_s": heard.duration_s,
    }


def serve(conn: Connection) -> None:
    """The speech process's loop: answer each request until the parent goes away."""
    if hasattr(os, "nice"):
        os.nice(5)  # the window's process comes first when both want a core
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_handle(request))


class SpeechWorker:
    """One speech process, started on first use."""

    def __init__(self) -> None:
        self.process: Child | None = None
        self._conn: Connection | None = None
        self._loaded: str | None = None
        """The model folder the running process has loaded."""
        self._lock = asyncio.Lock()

    @property
    def busy(self) -> bool:
        """Whether a request is under way."""
        return self._lock.locked()

    def _start(self) -> Connection:
        if self.process is not None and self._conn is not None and self.process.is_alive():
            return self._conn
        self._end()
        try:
            self.process, self._conn = start_child(serve, name="speech")
        except (OSError, ValueError) as exc:
            raise UserError(NOT_STARTED) from exc
        return self._conn

    @staticmethod
    def _exchange(conn: Connection, request: dict[str, Any]) -> Any:
        try:
            conn.send(request)
            return conn.recv()
        except (EOFError, OSError):
            raise SpeechProcessStopped(STOPPED) from None

    async def _request(self, request: dict[str, Any]) -> dict[str, Any]:
        async with self._lock:
            conn = self._start()
            try:
                reply = await asyncio.to_thread(self._exchange, conn, request)
            except SpeechProcessStopped:
                self._end()
                raise
            except asyncio.CancelledError:
                self._end()  # its answer would come to the next request
                raise
        if not isinstance(reply, dict):
            raise SpeechProcessStopped(STOPPED)
        if not reply.get("ok"):
            raise UserError(str(reply.get("error") or STOPPED))
        return reply

    def _end(self) -> None:
        process, conn = self.process, self._conn
        self.process = self._conn = self._loaded = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.stop()

    async def load(self, model_dir: str | os.PathLike[str]) -> None:
        """Start the process (if need be) and load the model, so the first words come sooner;
        nothing to do when the running process has it loaded."""
        folder = str(model_dir)
        if self._loaded == folder and self.process is not None and self.process.is_alive():
            return
        await self._request({"op": "load", "model_dir": folder})
        if self.process is not None:
            self._loaded = folder

    async def transcribe(
        self, wav: bytes, model_dir: str | os.PathLike[str], language: str | None = None
    ) -> Transcript:
        """What the WAV file ``wav`` says, transcribed in the speech process."""
        return self._transcript(
            await self._request(
                {"op": "transcribe", "model_dir": str(model_dir), "language": language, "wav": wav}
            )
        )

    async def recognise_so_far(
        self, pcm: bytes, model_dir: str | os.PathLike[str], language: str | None = None
    ) -> Transcript:
        """The words so far in ``pcm`` (16-bit mono at 16 kHz, still being recorded): a quick
        pass in the speech process (:func:`~app.services.voice.partial.recognise_so_far`)."""
        return self._transcript(
            await self._request(
                {"op": "partial", "model_dir": str(model_dir), "language": language, "pcm": pcm}
            )
        )

    @staticmethod
    def _transcript(reply: dict[str, Any]) -> Transcript:
        return Transcript(
            str(reply["text"]),
            str(reply["language"]),
            float(reply["language_probability"]),
            float(reply["duration_s"]),
        )

    async def aclose(self) -> None:
        """End the process (what it was doing is dropped)."""
        if self.process is not None:
            await asyncio.to_thread(self._end)
