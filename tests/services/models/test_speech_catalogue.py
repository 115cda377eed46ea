"""Speech models in the catalogue: downloaded file by file from a local server that serves
them as the hub does (the chat models' download path: progress, resume after a cut, checksum
refusal), listed without a connection, and registered from a folder already on disk."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.services.models._download import Progress
from app.services.models.catalogue import DownloadError, NotEnoughResources
from app.services.models.speech import (
    SPEECH_CATALOGUE,
    SpeechEntry,
    SpeechFile,
    SpeechModels,
)
from tests.services.hub_server import HostedFile, HubServer, serving
from tests.speech_models import VOICE, WHISPER, needs_speech, voice_folder, whisper_folder

WEIGHTS = os.urandom(300_000)
CONFIG = b'{"alignment_heads": []}'


def _file(name: str, data: bytes) -> SpeechFile:
    return SpeechFile(name, len(data), hashlib.sha256(data).hexdigest())


ENTRY = SpeechEntry(
    name="whisper-test",
    title="Whisper test model",
    kind="whisper",
    repo="someone/faster-whisper-test",
    folder="",
    files=(_file("model.bin", WEIGHTS), _file("config.json", CONFIG)),
    ram_bytes=1,
    licence="MIT",
    languages="en",
)
VOICE_DATA = os.urandom(50_000)
VOICE_ENTRY = SpeechEntry(
    name="voice-test",
    title="Test voice",
    kind="voice",
    repo="someone/voices",
    folder="en/en_US/test/medium",
    files=(
        _file("en_US-test-medium.onnx", VOICE_DATA),
        _file("en_US-test-medium.onnx.json", b"{}"),
    ),
    ram_bytes=1,
    licence="CC0-1.0",
    languages="en_US",
    revision="v1.0.0",
)

hub = pytest.fixture(serving, name="hub")


def _models(tmp_path: Path, hub: HubServer) -> SpeechModels:
    return SpeechModels(tmp_path, hub_url=hub.url, catalogue=(ENTRY, VOICE_ENTRY))


def test_the_catalogue_keeps_the_hubs_addresses_and_a_checksum_for_every_file() -> None:
    base = next(e for e in SPEECH_CATALOGUE if e.name == "whisper-base")
    assert base.url(base.files[0]) == (
        "https://huggingface.co/Systran/faster-whisper-base/resolve/main/model.bin"
    )
    joe = next(e for e in SPEECH_CATALOGUE if e.name == "voice-en_US-joe")
    assert joe.url(joe.files[0]) == (
        "https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/"
        "en/en_US/joe/medium/en_US-joe-medium.onnx"
    )
    for entry in SPEECH_CATALOGUE:
        assert all(len(f.sha256) == 64 and f.size_bytes > 0 for f in entry.files)


def test_listing_opens_no_connection(tmp_path: Path, hub: HubServer) -> None:
    rows = _models(tmp_path, hub).listing()
    assert [(r.name, r.installed) for r in rows] == [("whisper-test", None), ("voice-test", None)]
    assert hub.requests == []


async def test_download_fetches_every_file_with_progress_and_installs(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, "model.bin", HostedFile(WEIGHTS))
    hub.host(ENTRY.repo, "config.json", HostedFile(CONFIG))
    models = _models(tmp_path, hub)
    seen: list[Progress] = []
    model = await models.download("whisper-test", seen.append)
    folder = tmp_path / "models" / "speech" / "whisper-test"
    assert Path(model.path) == folder
    assert (folder / "model.bin").read_bytes() == WEIGHTS
    assert (folder / "config.json").read_bytes() == CONFIG
    assert seen[-1].done == seen[-1].total
    assert models.get(None, "whisper") == model
    assert models.listing()[0].installed == model


async def test_a_voice_downloads_from_its_folder_and_revision(
    tmp_path: Path, hub: HubServer
) -> None:
    for f, data in zip(VOICE_ENTRY.files, (VOICE_DATA, b"{}"), strict=True):
        hub.host(VOICE_ENTRY.repo, f"{VOICE_ENTRY.folder}/{f.filename}", HostedFile(data), "v1.0.0")
    model = await _models(tmp_path, hub).download("voice-test")
    assert model.voice_file.read_bytes() == VOICE_DATA


async def test_a_cut_download_is_resumed_and_a_whole_file_is_not_fetched_again(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, "model.bin", HostedFile(WEIGHTS, drop_after=0, drops=99))
    hub.host(ENTRY.repo, "config.json", HostedFile(CONFIG))
    folder = tmp_path / "models" / "speech" / "whisper-test"
    folder.mkdir(parents=True)
    (folder / "config.json").write_bytes(CONFIG)  # already whole from an earlier run
    (folder / "model.bin.part").write_bytes(WEIGHTS[:100_000])
    models = _models(tmp_path, hub)
    with pytest.raises(DownloadError, match="100000 bytes are kept"):
        await models.download("whisper-test", retry_delay=0.001)
    assert models.listing()[0].partial_bytes == 100_000
    hub.files[f"/{ENTRY.repo}/resolve/main/model.bin"].drops = 0
    hub.requests.clear()
    await models.download("whisper-test")
    assert (folder / "model.bin").read_bytes() == WEIGHTS
    assert [r for p, r in hub.requests if p.startswith("/cdn/")] == ["bytes=100000-"]
    assert not any("config.json" in p for p, _ in hub.requests)


async def test_a_file_that_does_not_match_its_checksum_is_refused_and_nothing_installs(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, "model.bin", HostedFile(b"x" * len(WEIGHTS)))
    models = _models(tmp_path, hub)
    with pytest.raises(DownloadError, match="damaged in transit"):
        await models.download("whisper-test")
    with pytest.raises(UserError, match="No Whisper model is installed"):
        models.get(None, "whisper")


async def test_a_download_that_would_fill_the_disk_is_refused_before_any_byte(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, "model.bin", HostedFile(WEIGHTS))
    models = SpeechModels(tmp_path, hub_url=hub.url, catalogue=(ENTRY,), free_disk=lambda _p: 1000)
    with pytest.raises(NotEnoughResources, match="Not enough disk space for whisper-test"):
        await models.download("whisper-test")
    assert not list((tmp_path / "models" / "speech").rglob("model.bin*"))


def test_a_folder_without_the_right_files_is_not_registered(tmp_path: Path, hub: HubServer) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "model.bin").write_bytes(b"something else")
    models = _models(tmp_path, hub)
    with pytest.raises(UserError, match="has no config.json"):
        models.add_folder(folder, "whisper-test")
    (folder / "config.json").write_bytes(CONFIG)
    with pytest.raises(UserError, match="SHA-256 differs"):
        models.add_folder(folder, "whisper-test")
    assert models.listing()[0].installed is None


@needs_speech
def test_the_packaged_models_are_the_catalogues_and_register_as_installed(tmp_path: Path) -> None:
    models = SpeechModels(tmp_path)
    whisper = models.add_folder(whisper_folder(), WHISPER)
    voice = models.add_folder(voice_folder(), VOICE)
    assert whisper.source == voice.source == "local"
    assert models.get(None, "whisper").name == WHISPER
    assert models.get(None, "voice").voice_file.name == "en_US-joe-medium.onnx"
    models.remove(WHISPER)
    assert (whisper_folder() / "model.bin").is_file()  # a registered folder is left alone
