"""A recording dropped on the real window is transcribed on this computer, and its chip says
so; the model that takes no audio is then not told it will miss the clip."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel

from app.core.state import AudioBlock
from app.services.voice import synthesize
from app.ui.attachments.describe import human_size
from tests.speech_models import needs_speech, register_speech_models, voice_folder
from tests.ui.attach_helpers import drop_on
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

pytestmark = needs_speech


async def test_a_dropped_recording_is_transcribed_and_its_chip_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    clip = tmp_path / "memo.wav"
    clip.write_bytes(
        synthesize("Water the tomatoes tomorrow morning.", voice_folder() / "en_US-joe-medium.onnx")
    )
    window = await open_test_window(data, Models({"scripted:a": ["Noted."]}))
    try:
        tray = window.attachments.tray
        current = window.stack.currentWidget()
        assert drop_on(window.chat.viewport() if current is window.chat else current, [clip])
        await wait_until(
            lambda: bool(tray.chips) and tray.chips[0].block is not None and not tray.busy,
            what="the recording to be read and transcribed",
            timeout=120,
        )
        chip = tray.chips[0]
        assert isinstance(chip.block, AudioBlock)
        assert "tomatoes" in (chip.block.transcript or "").lower()
        assert chip.detail.text().startswith("transcribed · 0:0")
        assert chip.detail.text().endswith(human_size(clip.stat().st_size))
        await wait_until(lambda: tray.fit_notes == [], what="the fit to be checked")
        assert "left out" not in find(window, QLabel, "attachmentFit").text()
    finally:
        await close_test_window(window)
