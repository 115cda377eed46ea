"""The model catalogue's journeys against a local server that serves files as the hub does:
listing without any connection, download with progress, resume after a cut, checksum
refusal, memory and disk refusals, removal, and adding a GGUF file from disk."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.services.models._download import Progress
from app.services.models.catalogue import (
    GB,
    CatalogueEntry,
    DownloadError,
    ModelLibrary,
    NotEnoughResources,
)
from tests.services.hub_server import HostedFile, HubServer, serving

ROOT = Path(__file__).resolve().parents[3]
DATA = b"GGUF" + os.urandom(299_996)
SHA = hashlib.sha256(DATA).hexdigest()
ENTRY = CatalogueEntry(
    name="tiny",
    title="Tiny test model",
    repo="someone/Tiny-GGUF",
    filename="tiny-q4.gguf",
    size_bytes=len(DATA),
    ram_bytes=GB // 2,
    licence="Apache-2.0",
    tool_calls="poor",
    sha256=SHA,
)
UNPINNED = CatalogueEntry(**{**ENTRY.__dict__, "name": "unpinned", "sha256": None})


hub = pytest.fixture(serving, name="hub")


def library(tmp_path: Path, hub: HubServer, **kw: object) -> ModelLibrary:
    return ModelLibrary(tmp_path, hub_url=hub.url, catalogue=(ENTRY, UNPINNED), **kw)  # type: ignore[arg-type]


def test_listing_opens_no_connection(tmp_path: Path, hub: HubServer) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    rows = library(tmp_path, hub).listing()
    assert [r.name for r in rows] == ["tiny", "unpinned"]
    assert all(r.installed is None for r in rows)
    assert hub.requests == []


async def test_download_follows_the_redirect_reports_progress_and_installs(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    lib = library(tmp_path, hub)
    seen: list[Progress] = []
    model = await lib.download("tiny", seen.append)
    assert Path(model.path).read_bytes() == DATA
    assert Path(model.path).parent == tmp_path / "models"
    assert not list((tmp_path / "models").glob("*.part"))
    assert seen[-1].done == seen[-1].total == len(DATA)
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert hub.requests[0][0] == "/someone/Tiny-GGUF/resolve/main/tiny-q4.gguf"
    assert hub.requests[1][0].startswith("/cdn/")
    assert [m.name for m in lib.installed()] == ["tiny"]
    assert lib.listing()[0].installed == model
    assert model.spec == f"gguf:{model.path}"


async def test_a_dropped_connection_is_resumed_with_a_range_request(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, drop_after=100_000, drops=2))
    model = await library(tmp_path, hub).download("tiny", retry_delay=0.01)
    assert Path(model.path).read_bytes() == DATA
    ranges = [r for p, r in hub.requests if p.startswith("/cdn/")]
    assert ranges == ["", "bytes=100000-", "bytes=200000-"]


async def test_a_download_cut_too_often_keeps_its_bytes_and_resumes_on_the_next_run(
    tmp_path: Path, hub: HubServer
) -> None:
    hosted = HostedFile(DATA, drop_after=0, drops=99)
    hub.host(ENTRY.repo, ENTRY.filename, hosted)
    lib = library(tmp_path, hub)
    part = tmp_path / "models" / "tiny-q4.gguf.part"
    part.parent.mkdir()
    part.write_bytes(DATA[:123_456])  # left by an earlier run that was stopped
    with pytest.raises(DownloadError, match="was cut off 6 times in a row") as err:
        await lib.download("tiny", retry_delay=0.001)
    assert "123456 bytes are kept; run the same download again to continue" in str(err.value)
    assert part.read_bytes() == DATA[:123_456]
    assert lib.listing()[0].partial_bytes == 123_456
    hosted.drops = 0
    hub.requests.clear()
    model = await lib.download("tiny")
    assert Path(model.path).read_bytes() == DATA
    assert [r for p, r in hub.requests if p.startswith("/cdn/")] == ["bytes=123456-"]


async def test_a_server_that_ignores_ranges_gets_the_whole_file_again(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(
        ENTRY.repo,
        ENTRY.filename,
        HostedFile(DATA, drop_after=100_000, drops=1, honour_range=False),
    )
    model = await library(tmp_path, hub).download("tiny", retry_delay=0.01)
    assert Path(model.path).read_bytes() == DATA


async def test_a_file_that_does_not_match_the_catalogue_checksum_is_refused(
    tmp_path: Path, hub: HubServer
) -> None:
    bad = b"GGUF" + b"not the model" * 1000
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(bad))
    lib = library(tmp_path, hub)
    with pytest.raises(DownloadError) as err:
        await lib.download("tiny")
    got = hashlib.sha256(bad).hexdigest()
    assert str(err.value) == (
        f"The download of Tiny test model was damaged in transit (its SHA-256 is {got[:12]}…, "
        f"the published one {SHA[:12]}…), so nothing was kept; try again."
    )
    assert list((tmp_path / "models").iterdir()) == []
    assert lib.installed() == []


async def test_without_a_catalogue_checksum_the_hubs_published_one_is_checked(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(UNPINNED.repo, UNPINNED.filename, HostedFile(DATA, published_sha256="0" * 64))
    lib = library(tmp_path, hub)
    with pytest.raises(DownloadError, match="the published one 000000000000…"):
        await lib.download("unpinned")
    assert lib.installed() == []
    hub.host(UNPINNED.repo, UNPINNED.filename, HostedFile(DATA))
    model = await lib.download("unpinned")
    assert Path(model.path).read_bytes() == DATA


async def test_too_little_memory_or_disk_is_refused_before_connecting(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    small_ram = library(tmp_path, hub, total_ram=lambda: GB // 4)
    with pytest.raises(NotEnoughResources) as err:
        await small_ram.download("tiny")
    assert str(err.value) == (
        "tiny needs about 500 MB of memory and this computer has 250 MB; choose a smaller model."
    )
    full_disk = library(tmp_path, hub, free_disk=lambda _p: 1000)
    with pytest.raises(NotEnoughResources) as err:
        await full_disk.download("tiny")
    assert str(err.value) == (
        f"Not enough disk space for tiny: it needs 200 MB and {tmp_path / 'models'} has 0 MB "
        "free. Free some space or choose a smaller model."
    )
    assert hub.requests == []


async def test_removing_a_downloaded_model_deletes_its_file(tmp_path: Path, hub: HubServer) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    lib = library(tmp_path, hub)
    model = await lib.download("tiny")
    lib.remove("tiny")
    assert not Path(model.path).exists()
    assert lib.installed() == []
    with pytest.raises(UserError, match="No model called 'tiny' is installed"):
        lib.remove("tiny")
    with pytest.raises(UserError, match="no model 'nope' in the catalogue; choose one of: tiny"):
        await lib.download("nope")


def test_a_local_gguf_file_is_added_in_place_and_removal_keeps_it(
    tmp_path: Path, hub: HubServer
) -> None:
    lib = library(tmp_path / "data", hub)
    gguf = tmp_path / "My-Model.Q4.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    model = lib.add(gguf)
    assert model.name == "My-Model.Q4"
    assert model.spec == f"gguf:{gguf.resolve()}"
    assert lib.listing()[-1].installed == model
    with pytest.raises(UserError, match="already a model called 'My-Model.Q4'"):
        lib.add(gguf)
    lib.remove("My-Model.Q4")
    assert gguf.exists()
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(UserError, match="is not a GGUF model file"):
        lib.add(text)
    with pytest.raises(UserError, match="is not a file"):
        lib.add(tmp_path / "missing.gguf")


def parley(*args: str, data_dir: Path, hub: HubServer) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PARLEY_DATA_DIR": str(data_dir), "PARLEY_HUB_URL": hub.url}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60, env=env, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_parley_models_on_the_command_line(tmp_path: Path, hub: HubServer) -> None:
    listed = parley("models", data_dir=tmp_path, hub=hub)
    assert listed.returncode == 0, listed.stderr
    assert "qwen2.5-0.5b" in listed.stdout and "not downloaded" in listed.stdout
    assert hub.requests == []
    # the real catalogue entry, served small by the local hub with its published checksum
    hub.host(
        "bartowski/Qwen2.5-0.5B-Instruct-GGUF",
        "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf",
        HostedFile(b"GGUF" + DATA, drop_after=90_000, drops=1),
    )
    path = tmp_path / "models" / "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"
    part = path.with_name(path.name + ".part")  # left by an earlier run that was cut off
    part.parent.mkdir()
    part.write_bytes((b"GGUF" + DATA)[:50_000])
    unfinished = parley("models", data_dir=tmp_path, hub=hub).stdout
    assert "unfinished (0 MB); download again to resume" in unfinished
    got = parley("models", "download", "qwen2.5-0.5b", data_dir=tmp_path, hub=hub)
    assert got.returncode == 0, got.stderr
    assert "100% of" in got.stderr
    ranges = [r for p, r in hub.requests if p.startswith("/cdn/")]
    assert ranges[0] == "bytes=50000-" and len(ranges) == 2  # resumed, then cut once more
    assert not part.exists()
    assert path.read_bytes() == b"GGUF" + DATA
    assert f"--model gguf:{path}" in got.stdout
    assert f"installed: --model gguf:{path}" in parley("models", data_dir=tmp_path, hub=hub).stdout
    gone = parley("models", "remove", "qwen2.5-0.5b", data_dir=tmp_path, hub=hub)
    assert gone.returncode == 0 and not path.exists()
    # a pinned entry whose bytes arrive damaged: one sentence, exit 2, nothing kept
    hub.host("bartowski/Qwen_Qwen3-0.6B-GGUF", "Qwen_Qwen3-0.6B-Q4_K_M.gguf", HostedFile(DATA))
    damaged = parley("models", "download", "qwen3-0.6b", data_dir=tmp_path, hub=hub)
    assert damaged.returncode == 2
    assert damaged.stderr.splitlines()[-1].startswith(
        "parley: The download of Qwen3 0.6B (Q4_K_M) was damaged in transit"
    )
    assert damaged.stderr.rstrip().endswith("so nothing was kept; try again.")
    assert "Traceback" not in damaged.stderr
    assert not any(p.name.startswith("Qwen_Qwen3") for p in (tmp_path / "models").iterdir())
    assert "not downloaded" in parley("models", data_dir=tmp_path, hub=hub).stdout
    bad = parley("models", "download", "gpt-9", data_dir=tmp_path, hub=hub)
    assert bad.returncode == 2
    assert bad.stderr.startswith("parley: There is no model 'gpt-9' in the catalogue")
    assert "Traceback" not in bad.stderr
    notgguf = tmp_path / "x.gguf"
    notgguf.write_text("hi")
    added = parley("models", "add", str(notgguf), data_dir=tmp_path, hub=hub)
    assert added.returncode == 2 and "is not a GGUF model file" in added.stderr
