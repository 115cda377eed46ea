"""A voice conversation in the real window, a recorded file standing in for the microphone
and a speaker that keeps what it is given: the spoken request is transcribed and sent, the
approval is asked aloud as well as in its dialog (answered by a click), and the reply after
the tool is read aloud; nothing connects anywhere."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QPushButton

from app.services.voice import synthesize, transcribe_file
from app.ui.app import close_window
from tests.speech_models import needs_speech, register_speech_models, voice_folder, whisper_folder
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window
from tests.ui.harness import find, wait_until
from tests.ui.test_dictation import FileRecorder
from tests.ui.test_read_aloud import KeptSpeaker, _joined

pytestmark = needs_speech


async def test_speak_approve_by_click_and_hear_the_reply(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    note = tmp_path / "trip.txt"
    call = {"name": "write_note", "args": {"path": str(note), "content": "Pack a jacket"}}
    model = Recorder(
        [
            {"tool_calls": [{**call, "id": "c1"}]},
            {"text": "The note is written. Enjoy the mountains and have a good trip."},
        ]
    )
    window = await open_tool_window(data, model)
    try:
        spoken = synthesize(
            "Please write a note that says pack a warm jacket for the trip.",
            voice_folder() / "en_US-joe-medium.onnx",
        )
        window.dictation.recorder_factory = lambda: FileRecorder(spoken)
        speaker = KeptSpeaker()
        window.read_aloud.speaker_factory = lambda: speaker
        find(window, QPushButton, "voiceModeButton").click()
        dictate = find(window, QPushButton, "dictateButton")
        dictate.click()
        dictate.click()  # stop: transcribed, then sent without pressing Send

        dialog = await approval_dialog(window, timeout=120)
        await wait_until(lambda: len(speaker.played) >= 2, 60, "the question to be spoken")
        asked = transcribe_file(_joined(speaker.played), whisper_folder(), "en").text.lower()
        # said by Piper (its voice varies from run to run) and heard as it sounds: "write note"
        # as "write no" or "right no", "approve?" as "a proof" or "the proof": most of the
        # question's parts, never every one
        parts = (("agent",), ("wants", "want"), ("use",), ("write", "right", "note"),
                 ("approve", "prove", "proof"))  # fmt: skip
        assert sum(any(word in asked for word in part) for part in parts) >= 4, asked
        first = model.inputs[0][-1].text().lower()
        assert "jacket" in first and "trip" in first, first

        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: note.exists(), 30, "the note to be written")
        await wait_until(
            lambda: not window.read_aloud.reading and len(speaker.played) >= 4, 120, "the reply"
        )
        heard = transcribe_file(_joined(speaker.played[2:]), whisper_folder(), "en").text.lower()
        said = ("note", "written", "enjoy", "mountains", "good", "trip")
        assert sum(word in heard for word in said) >= 4, heard  # most of what was said
        assert await window.workspace.network.recent() == []
    finally:
        await close_window(window)
