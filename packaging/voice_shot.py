"""Render the window in a voice conversation: Voice on, the request that was dictated sent, the
reply being read aloud, a recording attached and transcribed, and new words dictated into the
message box.

Run: ``.venv/bin/python packaging/voice_shot.py OUT.png [light|dark]`` (called by
``packaging/screenshots.py``). It needs the voice extra and the dev extra's speech models; the
speech is made here by the Piper voice, and a recording stands in for the microphone.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REPLY = (
    "The first train to Bergen leaves at 8:05 from platform 4 and arrives at 14:50. "
    "Bring a warm jacket: the mountain pass is cold in the morning."
)


class _Recording:
    """A recording in place of the microphone."""

    def __init__(self, wav: bytes) -> None:
        self.wav = wav

    def start(self) -> str | None:
        return None

    def stop(self) -> bytes:
        return self.wav

    def cancel(self) -> None:
        pass


class _Silent:
    """A loudspeaker that plays nothing (the picture needs no sound)."""

    def play(self, wav: bytes) -> None:
        pass

    def stop(self) -> None:
        pass


async def _shoot(out: Path, tmp: Path) -> None:
    from app.core.models import ScriptedChatModel
    from app.services.settings import AppSettings
    from app.services.voice import synthesize
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.window import MainWindow
    from tests.speech_models import register_speech_models, voice_folder

    voice = voice_folder() / "en_US-joe-medium.onnx"
    data = tmp / "data"
    register_speech_models(data)
    memo = tmp / "voice memo.wav"
    memo.write_bytes(synthesize("Remember to book the hotel in Bergen for two nights.", voice))
    model = ScriptedChatModel([REPLY], delay=0.15)
    workspace = await Workspace.open(
        data, resolve_model=lambda spec: model, secret_resolver=lambda ref: None
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    thread = await workspace.threads.create(title="Trip to Bergen")
    window = MainWindow(workspace, settings_path=tmp / "window.ini")
    window.resize(1180, 820)
    window.show()
    await window.start(thread.id, preload=False)
    window.read_aloud.speaker_factory = _Silent
    asked = synthesize("When does the first train leave tomorrow morning?", voice)
    window.dictation.recorder_factory = lambda: _Recording(asked)
    window.voice_mode.button.click()
    window.dictation.button.click()
    window.dictation.button.click()
    for _ in range(400):  # the words, then the reply streaming and read aloud
        if window.chat_vm.model.rowCount() >= 2 and window.read_aloud.reading:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0)
    task = window.attachments.tray.add([memo])
    if task is not None:
        await task
    later = synthesize("And a table for dinner near the harbour.", voice)
    window.dictation.recorder_factory = lambda: _Recording(later)
    window.voice_mode.button.setChecked(False)  # these words wait in the box
    window.dictation.button.click()
    window.dictation.button.click()
    for _ in range(400):
        if window.composer.edit.toPlainText():
            break
        await asyncio.sleep(0.05)
    window.voice_mode.button.setChecked(True)
    window.composer.set_hint("Reading aloud… Ctrl+Shift+R or Esc stops.")
    for _ in range(20):
        window.chat.viewport().repaint()
        await asyncio.sleep(0.05)
    window.grab().save(str(out))
    window.read_aloud.stop()
    await close_window(window)


def main(out: Path, theme: str) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync

    from app.ui.app import _application

    app = _application(theme)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp, loop:
        loop.run_until_complete(_shoot(out, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "light"))
