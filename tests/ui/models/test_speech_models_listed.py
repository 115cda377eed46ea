"""Manage models lists the speech models with the chat models, each saying what it is for;
removing a voice added from disk forgets it and leaves its files where they are."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QListWidget, QPushButton

from tests.speech_models import needs_speech, register_speech_models, voice_folder
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until
from tests.ui.models.test_model_remove import open_manage, texts

pytestmark = needs_speech


async def test_speech_models_are_listed_and_a_voice_can_be_forgotten(tmp_path: Path) -> None:
    register_speech_models(tmp_path)
    window = await open_test_window(tmp_path, Models({"scripted:a": ["Hello."]}))
    try:
        await window.refresh_models()
        dialog = await open_manage(window)
        listing = find(dialog, QListWidget, "installedModels")
        rows = texts(listing)
        whisper = [r for r in rows if r.startswith("Whisper base")]
        voice = [r for r in rows if r.startswith("Piper voice: Joe")]
        assert len(whisper) == 1 and "(speech to text)" in whisper[0]
        assert whisper[0].endswith(", added from disk")
        assert len(voice) == 1 and "(read-aloud voice)" in voice[0]

        listing.setCurrentRow(rows.index(voice[0]))
        remove = find(dialog, QPushButton, "removeModelButton")
        assert remove.isEnabled()
        remove.click()
        await wait_until(lambda: dialog.confirm is not None, what="the question")
        box = dialog.confirm
        assert box is not None
        assert box.text().startswith("Remove Piper voice: Joe")
        [yes] = [b for b in box.buttons() if b.text() == "Remove"]
        yes.click()
        await wait_until(lambda: listing.count() == len(rows) - 1, what="the removal")
        assert not any(r.startswith("Piper voice") for r in texts(listing))
        assert (voice_folder() / "en_US-joe-medium.onnx").is_file()  # left where it was
        dialog.reject()
    finally:
        await close_test_window(window)
