"""A fresh process for ``bench_voice``: the window's longest event-loop stall while dictation
transcribes a recording (a file standing in for the microphone) and while a reply is read
aloud (a loudspeaker that plays nothing). Prints one JSON line.

Run: ``python -m bench._voice_window_child DATA_DIR``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPLY = " ".join(
    [
        "The first train leaves at dawn from the harbour station.",
        "Bring a warm coat because the wind on the coast is strong in winter.",
        "The last train comes back late in the evening.",
        "Tickets can be bought on board or at the machines by the entrance.",
    ]
)


class _Recording:
    def __init__(self, wav: bytes) -> None:
        self.wav = wav

    def start(self) -> str | None:
        return None

    def heard(self) -> bytes:
        return b""

    def stop(self) -> bytes:
        return self.wav

    def cancel(self) -> None:
        pass


class _Live:
    """A recording heard as if spoken now, as a microphone takes it in."""

    def __init__(self, pcm: bytes) -> None:
        self.pcm = pcm
        self.began = 0.0

    def start(self) -> str | None:
        self.began = time.perf_counter()
        return None

    def heard(self) -> bytes:
        return self.pcm[: int((time.perf_counter() - self.began) * 16_000) * 2]

    def stop(self) -> bytes:
        from app.ui.dictation import wav_bytes

        return wav_bytes(self.heard())

    def cancel(self) -> None:
        pass


class _Silent:
    def play(self, wav: bytes) -> None:
        pass

    def stop(self) -> None:
        pass


async def _stall(data_dir: str) -> dict[str, float]:
    from app.core.models import ScriptedChatModel
    from app.services.settings import AppSettings
    from app.services.voice import synthesize
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.speech_input import wav_bytes
    from app.ui.window import MainWindow
    from tests.speech_models import as_microphone, register_speech_models, voice_folder

    register_speech_models(Path(data_dir))
    spoken = synthesize(REPLY + " " + REPLY, voice_folder() / "en_US-joe-medium.onnx")
    clip = wav_bytes(as_microphone(spoken))
    model = ScriptedChatModel([{"text": REPLY}])
    workspace = await Workspace.open(
        data_dir, resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    await window.start(preload=False)
    await workspace.voice.prepare_dictation()  # the speech process loads its model first

    async def longest_gap(until: object) -> float:
        worst, last = 0.0, time.perf_counter()
        while not until():  # type: ignore[operator]
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.001)
            last = now
        return worst

    settle = time.perf_counter() + 1.0
    idle = await longest_gap(lambda: time.perf_counter() > settle)
    window.dictation.recorder_factory = lambda: _Recording(clip)
    window.dictation.button.click()
    window.dictation.button.click()
    listening = await longest_gap(lambda: bool(window.composer.edit.toPlainText()))
    window.composer.edit.clear()
    live = as_microphone(synthesize(REPLY, voice_folder() / "en_US-joe-medium.onnx"))
    window.dictation.recorder_factory = lambda: _Live(live)
    began = time.perf_counter()
    window.dictation.button.click()
    first_words = -1.0

    def said() -> bool:
        nonlocal first_words
        if first_words < 0 and window.composer.edit.toPlainText():
            first_words = time.perf_counter() - began
        return time.perf_counter() - began > len(live) / 32_000

    speaking_live = await longest_gap(said)
    window.dictation.cancel()
    window.composer.edit.clear()
    thread_id = window.chat_vm.thread_id
    assert thread_id is not None
    await (await workspace.runs.send(thread_id, "When do the trains run?"))
    await asyncio.sleep(0.3)
    window.read_aloud.speaker_factory = _Silent
    window.read_aloud.toggle_last()
    speaking = await longest_gap(lambda: not window.read_aloud.reading)
    await close_window(window)
    return {
        "idle_ms": idle * 1000,
        "listening_ms": listening * 1000,
        "live_ms": speaking_live * 1000,
        "first_words_ms": first_words * 1000,
        "speaking_ms": speaking * 1000,
    }


def main(argv: list[str]) -> int:
    """Measure in a window offscreen and print the JSON."""
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.qt_env import prepare_qt_environment

    prepare_qt_environment()
    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(_stall(argv[0]))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
