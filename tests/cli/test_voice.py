"""``parley say``, ``parley transcribe`` and the speech rows of ``parley models``, run as a
user would: real processes, real speech, a voice downloaded from a local hub."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import wave
from contextlib import contextmanager
from pathlib import Path

from tests.cli.test_chat import ROOT, parley
from tests.services.hub_server import HostedFile, serving
from tests.speech_models import needs_speech, register_speech_models, voice_folder


@needs_speech
def test_say_writes_a_wav_whose_transcription_gives_its_words_back(tmp_path: Path) -> None:
    register_speech_models(tmp_path)
    out = tmp_path / "out.wav"
    said = parley(
        "say", "Remember to water the garden on Friday.", "-o", str(out), data_dir=tmp_path
    )
    assert said.returncode == 0, said.stderr
    with wave.open(str(out)) as wav:
        assert wav.getnframes() / wav.getframerate() > 1.0
    heard = parley("transcribe", str(out), data_dir=tmp_path)
    assert heard.returncode == 0, heard.stderr
    words = heard.stdout.lower()
    # Piper's voice varies from run to run and Whisper writes what it hears ("guard in"): most
    # of the words, not every one
    spoken = ("water", "garden", "friday")
    assert sum(word in words for word in spoken) >= 2, heard.stdout
    assert "(language: en)" in heard.stderr
    fixed = parley("transcribe", str(out), "--language", "en", data_dir=tmp_path)
    assert sum(word in fixed.stdout.lower() for word in spoken) >= 2, fixed.stdout
    assert "language" not in fixed.stderr


@needs_speech
def test_models_lists_the_speech_models_and_downloads_a_voice_from_the_hub(
    tmp_path: Path,
) -> None:
    listed = parley("models", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines() if line.strip()}
    assert "hears" in rows["whisper-base"] and "not downloaded" in rows["whisper-base"]
    assert "speaks" in rows["voice-en_US-joe"]
    folder = voice_folder()
    with contextmanager(serving)() as hub:
        for name in ("en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json"):
            where = f"en/en_US/joe/medium/{name}"
            hub.host(
                "rhasspy/piper-voices", where, HostedFile((folder / name).read_bytes()), "v1.0.0"
            )
        env = {**os.environ, "PARLEY_DATA_DIR": str(tmp_path), "PARLEY_HUB_URL": hub.url}
        done = subprocess.run(
            [sys.executable, "-m", "app", "models", "download", "voice-en_US-joe"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "installed voice-en_US-joe" in done.stdout
    kept = tmp_path / "models" / "speech" / "voice-en_US-joe" / "en_US-joe-medium.onnx"
    assert kept.read_bytes() == (folder / "en_US-joe-medium.onnx").read_bytes()
    listed = parley("models", data_dir=tmp_path)
    assert "installed" in next(x for x in listed.stdout.splitlines() if "voice-en_US-joe" in x)
    said = parley("say", "Hello there.", "-o", str(tmp_path / "hi.wav"), data_dir=tmp_path)
    assert said.returncode == 0, said.stderr
    with wave.open(io.BytesIO((tmp_path / "hi.wav").read_bytes())) as wav:
        assert wav.getnframes() > 0


@needs_speech
def test_transcribe_without_a_model_says_how_to_get_one(tmp_path: Path) -> None:
    (tmp_path / "clip.wav").write_bytes(b"RIFF")
    done = parley("transcribe", str(tmp_path / "clip.wav"), data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "parley: No Whisper model is installed. Download one with "
        "`parley models download whisper-base`.\n"
    )
    said = parley("say", "Hi.", "-o", str(tmp_path), data_dir=tmp_path)
    assert said.returncode == 2
    assert "is a folder; give the name of a .wav file to write" in said.stderr


@needs_speech
def test_a_bad_recording_and_a_bad_speed_are_one_sentence_each(tmp_path: Path) -> None:
    register_speech_models(tmp_path)
    (tmp_path / "notes.mp3").write_text("not a recording")
    done = parley("transcribe", str(tmp_path / "notes.mp3"), data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("parley: notes.mp3 is not a recording Parley can read")
    assert "Traceback" not in done.stderr
    slow = parley("say", "Hi.", "-o", str(tmp_path / "a.wav"), "--speed", "0", data_dir=tmp_path)
    assert slow.returncode == 2
    assert "'0' is not a speed from 0.25 to 4" in slow.stderr


_WITHOUT_ENGINES = """
import sys
from importlib.abc import MetaPathFinder

class NoSpeech(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("faster_whisper", "piper"):
            raise ModuleNotFoundError(name)
        return None

sys.meta_path.insert(0, NoSpeech())
sys.frozen = True
from app.cli.main import run
sys.exit(run(sys.argv[1:]))
"""


def test_a_build_without_speech_engines_says_so_in_one_sentence(tmp_path: Path) -> None:
    for argv, verb in (
        (["say", "Hi.", "-o", "a.wav"], "speak"),
        (["transcribe", "a.wav"], "transcribe"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", _WITHOUT_ENGINES, *argv],
            cwd=ROOT,
            env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        # no model is installed either: the missing engine is said first
        assert done.returncode == 2, done.stderr
        assert done.stderr == (
            f"parley: This build of Parley has no speech engine, so it cannot {verb}; run "
            "Parley from source with its voice extra (pip install '.[voice]' in its folder) to use "
            "voice.\n"
        )


@needs_speech
def test_chat_attach_puts_a_recordings_words_before_a_text_only_model(tmp_path: Path) -> None:
    from app.services.voice import synthesize
    from tests.providers.replay_server import ReplayServer, Reply, sse_events

    register_speech_models(tmp_path)
    clip = tmp_path / "memo.wav"
    clip.write_bytes(
        synthesize(
            "Buy bread and apples on the way home.", voice_folder() / "en_US-joe-medium.onnx"
        )
    )
    server = ReplayServer().start()
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    try:
        model = f"openai:gpt-x@{server.url}/v1"
        done = parley(
            "chat", "--model", model, "--attach", str(clip), "What should I buy?", data_dir=tmp_path
        )
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert "Hello, world!" in done.stdout
    user = next(m for m in server.requests[0]["json"]["messages"] if m["role"] == "user")
    sent = json.dumps(user["content"]).lower()
    heard = sum(word in sent for word in ("bread", "apples", "home"))  # most of what was said
    assert "transcript of memo.wav" in sent and heard >= 2, sent
    assert "input_audio" not in sent
    ledger = parley("network", data_dir=tmp_path).stdout.splitlines()
    assert len(ledger) == 2 and "the model openai:gpt-x@" in ledger[0], ledger
    assert ledger[1] == "1 shown, 0 to other computers."  # transcription made none


def test_downloading_an_unknown_model_names_the_speech_models_too(tmp_path: Path) -> None:
    done = parley("models", "download", "whisper-huge", data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("parley: There is no model 'whisper-huge' in the catalogue")
    assert "voice-en_US-joe, whisper-base." in done.stderr
