"""A catalogue download keeps its bounds against a hostile hub: no more bytes than the entry
can have, only a GGUF file, an overall deadline, redirects only to public addresses (the hub
the user named is the one exception), and every malformed answer is one sentence."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from app.services.models._download import Progress, download_file
from app.services.models.catalogue import DownloadError, ModelLibrary
from tests.services.hub_server import HostedFile, HubServer, serving
from tests.services.models.test_catalogue import DATA, ENTRY, UNPINNED, hub, library

__all__ = ["hub"]  # the local hub server fixture

PATH = f"/{ENTRY.repo}/resolve/main/{ENTRY.filename}"
CDN = f"/cdn/{'0' * 64}{PATH}"
BOUND = int(len(DATA) * 1.01)


other = pytest.fixture(serving, name="other")
"""A second hub on another loopback port: reachable, but not the hub that was named."""


async def refusal(lib: ModelLibrary, name: str = "tiny", **kw: object) -> str:
    # bounded here, so that a download with no bound of its own fails the test instead of
    # hanging it
    with pytest.raises(DownloadError) as err:
        await asyncio.wait_for(lib.download(name, **kw), 30)  # type: ignore[arg-type]
    return str(err.value)


def models_dir(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "models").iterdir())


async def test_a_chunked_body_with_no_length_stops_at_the_catalogue_size(
    tmp_path: Path, hub: HubServer
) -> None:
    endless = DATA + b"\0" * 5_000_000
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(endless, chunked=True, linked_size=""))
    lib = library(tmp_path, hub)
    seen: list[Progress] = []
    said = await refusal(lib, progress=seen.append)
    assert said == (
        f"Could not download Tiny test model: the server sent more than the {BOUND} bytes the "
        "file can have, so nothing was kept; try again later."
    )
    assert max(p.done for p in seen) <= BOUND
    assert models_dir(tmp_path) == []  # no part to resume from, nothing installed
    assert lib.installed() == [] and lib.listing()[0].partial_bytes == 0
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    hub.requests.clear()
    model = await lib.download("tiny")
    assert Path(model.path).read_bytes() == DATA
    assert [r for p, r in hub.requests if p.startswith("/cdn/")] == [""]  # from the start


async def test_more_bytes_than_announced_are_refused_too(tmp_path: Path, hub: HubServer) -> None:
    longer = DATA[:200_000] + b"\0" * 200_000
    hosted = HostedFile(longer, chunked=True, linked_size="200000")
    hub.host(ENTRY.repo, ENTRY.filename, hosted)
    said = await refusal(library(tmp_path, hub))
    assert said == (
        "Could not download Tiny test model: the server sent more than the 200000 bytes it "
        "announced, so nothing was kept; try again later."
    )
    assert models_dir(tmp_path) == []


async def test_an_announced_size_beyond_the_catalogue_size_is_refused_up_front(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, linked_size="61000000"))
    said = await refusal(library(tmp_path, hub))
    assert said == (
        f"Could not download Tiny test model: the server offers 61000000 bytes for it, more "
        f"than the {BOUND} it can be. Try again later."
    )
    assert models_dir(tmp_path) == []


async def test_a_page_that_is_not_gguf_is_refused_though_its_size_and_checksum_match(
    tmp_path: Path, hub: HubServer
) -> None:
    page = b"<!DOCTYPE html><html><body>Sign in to continue</body></html>".ljust(len(DATA))
    hub.host(UNPINNED.repo, UNPINNED.filename, HostedFile(page))  # its own SHA-256 published
    lib = library(tmp_path, hub)
    said = await refusal(lib, "unpinned")
    assert said == (
        "Could not download Tiny test model: the server sent something that is not a GGUF "
        "model file (it does not start with 'GGUF'), so nothing was kept; try again later."
    )
    assert models_dir(tmp_path) == []
    assert lib.installed() == []


async def test_a_slow_drip_ends_at_the_deadline_and_keeps_its_bytes(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, drip=0.05))
    lib = library(tmp_path, hub, deadline=1.5)
    said = await refusal(lib)
    match = re.fullmatch(
        r"The download of Tiny test model did not finish within 1.5 seconds\. (\d+) bytes are "
        r"kept; run the same download again to continue\.",
        said,
    )
    assert match is not None, said
    part = tmp_path / "models" / (ENTRY.filename + ".part")
    assert part.read_bytes() == DATA[: int(match.group(1))]
    assert lib.installed() == []


async def test_a_redirect_to_another_loopback_server_is_refused(
    tmp_path: Path, hub: HubServer, other: HubServer
) -> None:
    other.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, redirect=f"{other.url}{PATH}"))
    lib = library(tmp_path, hub)
    said = await refusal(lib)
    assert said == (
        "Could not download Tiny test model: the server redirected it to 127.0.0.1, which is a "
        "loopback address (this computer); downloads go only to public internet addresses."
    )
    assert other.requests == []  # reachable, but never contacted
    port = hub.url.rsplit(":", 1)[1]
    for where, why in [
        (f"http://localhost:{port}{CDN}", "(the address of 'localhost'), which is a loopback"),
        ("http://10.0.0.1/file", "to 10.0.0.1, which is a private or reserved address"),
        (
            "http://[::ffff:127.0.0.1]/file",
            "::ffff:7f00:1, which is an IPv4-mapped address of 127.0.0.1",
        ),
    ]:
        hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, redirect=where))
        assert why in await refusal(lib)
    assert models_dir(tmp_path) == []


async def test_only_the_named_hub_may_be_on_this_computer(tmp_path: Path, hub: HubServer) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    with pytest.raises(DownloadError) as err:
        await download_file(
            f"{hub.url}{PATH}", tmp_path / "x.gguf", sha256=None, label="Tiny test model"
        )
    assert str(err.value) == (
        "Could not download Tiny test model: 127.0.0.1 is a loopback address (this computer); "
        "downloads go only to public internet addresses."
    )
    assert hub.requests == []


async def test_a_redirect_loop_is_one_sentence(tmp_path: Path, hub: HubServer) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, redirect=PATH))
    said = await refusal(library(tmp_path, hub))
    assert said == (
        "Could not download Tiny test model: the address redirected more than 5 times; stopped "
        "following. Try again later."
    )
    assert len(hub.requests) == 6


@pytest.mark.parametrize(
    ("fault", "header"),
    [
        ({"linked_size": "300k"}, "the server sent a malformed X-Linked-Size header ('300k')"),
        ({"linked_size": "²"}, "the server sent a malformed X-Linked-Size header ('²')"),
        (
            {"linked_size": "", "content_length": "12x"},
            "the server's answer is not valid HTTP ('bad Content-Length')",
        ),
        (
            {"linked_size": "", "content_length": "-5"},
            "the server's answer is not valid HTTP ('bad Content-Length')",
        ),
    ],
)
async def test_a_malformed_size_header_is_one_sentence(
    tmp_path: Path, hub: HubServer, fault: dict[str, str], header: str
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, **fault))  # type: ignore[arg-type]
    said = await refusal(library(tmp_path, hub), retry_delay=0.01)
    assert said == f"Could not download Tiny test model: {header}. Try again later."
    assert models_dir(tmp_path) == []


@pytest.mark.parametrize(
    ("content_range", "said"),
    [
        ("bytes 100000-x/300000", "the server sent a malformed Content-Range header"),
        ("bytes 100000-299999/²", "the server sent a malformed Content-Range header"),
        ("", "the server sent a malformed Content-Range header ('')"),
        ("bytes 0-299999/300000", "asked to continue from byte 100000, the server sent bytes "),
    ],
)
async def test_a_malformed_content_range_on_resuming_keeps_the_part(
    tmp_path: Path, hub: HubServer, content_range: str, said: str
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, content_range=content_range))
    part = tmp_path / "models" / (ENTRY.filename + ".part")
    part.parent.mkdir()
    part.write_bytes(DATA[:100_000])
    got = await refusal(library(tmp_path, hub))
    assert got.startswith(f"Could not download Tiny test model: {said}")
    assert got.endswith(". 100000 bytes are kept; run the same download again to continue.")
    assert part.read_bytes() == DATA[:100_000]
