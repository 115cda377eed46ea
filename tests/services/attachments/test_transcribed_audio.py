"""An attached recording is transcribed on this computer: its transcript fills the audio
block, a text-only model on a real OpenAI-compatible server (127.0.0.1) receives the words,
and the network ledger shows no connection made while transcribing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.state import AudioBlock
from app.services.voice import synthesize
from app.services.workspace import Workspace
from tests.providers.replay_server import ReplayServer, Reply, sse_events
from tests.services.memory_keyring import MemoryKeyring
from tests.speech_models import needs_speech, register_speech_models, voice_folder

pytestmark = needs_speech

REQUEST = "Please book a table by the window for dinner tonight."


def _clip(folder: Path) -> Path:
    clip = folder / "clip.wav"
    clip.write_bytes(synthesize(REQUEST, voice_folder() / "en_US-joe-medium.onnx"))
    return clip


def _user_text(body: dict[str, Any]) -> str:
    user = next(m for m in body["messages"] if m["role"] == "user")
    content = user["content"]
    if isinstance(content, str):
        return content
    assert all(p["type"] == "text" for p in content), content  # no audio part is sent
    return "\n".join(p["text"] for p in content)


async def test_an_attached_recording_reaches_a_text_only_model_as_its_words(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    register_speech_models(tmp_path)
    clip = _clip(tmp_path)
    server = ReplayServer().start()
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    workspace = await Workspace.open(tmp_path)
    try:
        got = await workspace.attachments.attach([clip])
        assert got.problems == [] and got.notes == []
        block = got.blocks[0]
        assert isinstance(block, AudioBlock) and block.transcript is not None
        for word in ("book", "table", "window", "dinner"):
            assert word in block.transcript.lower(), block.transcript
        await workspace.network.flush()
        assert workspace.network.session() == []  # transcribing opened no connection
        assert await workspace.network.recent() == []

        thread = await workspace.threads.create(model=f"openai:gpt-x@{server.url}/v1")
        state = await (await workspace.runs.send(thread.id, "What did I ask for?", got.blocks))
        assert state is not None and state.context[-1].text() == "Hello, world!"
        sent = _user_text(server.requests[0]["json"])
        assert "What did I ask for?" in sent
        assert "[Transcript of clip.wav]" in sent and "table" in sent.lower()
        await workspace.network.flush()
        hosts = {c.host for c in await workspace.network.recent()}
        assert hosts == {"127.0.0.1"}  # the model's server, and nothing else
    finally:
        await workspace.aclose()
        server.stop()


async def test_a_dropped_recording_is_transcribed_as_it_is_read(tmp_path: Path) -> None:
    register_speech_models(tmp_path)
    clip = _clip(tmp_path)
    stages: list[str] = []
    workspace = await Workspace.open(tmp_path)
    try:
        result = await workspace.attachments.ingest(clip, lambda p: stages.append(p.stage))
        assert isinstance(result.block, AudioBlock)
        assert "table" in (result.block.transcript or "").lower()
        assert stages[-1] == "transcribing"
        assert workspace.network.session() == []
    finally:
        await workspace.aclose()


async def test_without_a_whisper_model_a_recording_attaches_untranscribed(tmp_path: Path) -> None:
    clip = _clip(tmp_path)
    workspace = await Workspace.open(tmp_path)
    try:
        got = await workspace.attachments.attach([clip])
        block = got.blocks[0]
        assert isinstance(block, AudioBlock) and block.transcript is None
        assert got.notes == []
    finally:
        await workspace.aclose()


async def test_a_recording_with_no_speech_says_so(tmp_path: Path) -> None:
    import wave

    register_speech_models(tmp_path)
    quiet = tmp_path / "quiet.wav"
    with wave.open(str(quiet), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(b"\0\0" * 16000 * 3)
    workspace = await Workspace.open(tmp_path)
    try:
        got = await workspace.attachments.attach([quiet])
        assert got.notes == ["quiet.wav: no speech was heard in it."]
        assert isinstance(got.blocks[0], AudioBlock) and got.blocks[0].transcript is None
    finally:
        await workspace.aclose()
