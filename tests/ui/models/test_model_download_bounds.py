"""A download from the model picker that a hostile hub breaks (a page instead of a model, a
redirect to this computer, a byte at a time) ends in one sentence in the window, installs
nothing and leaves the thread's model as it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.services.hub_server import HostedFile, HubServer, serving
from tests.services.models.test_catalogue import DATA, ENTRY
from tests.ui.harness import close_test_window
from tests.ui.models.test_model_download import assert_model_kept, refusal_of, window_on

hub = pytest.fixture(serving, name="hub")
other = pytest.fixture(serving, name="other")

PATH = f"/{ENTRY.repo}/resolve/main/{ENTRY.filename}"
PAGE = b"<!DOCTYPE html><html><body>Sign in to continue</body></html>".ljust(len(DATA))
SAID = {
    "not gguf": re.escape(
        "Could not download Tiny test model: the server sent something that is not a GGUF "
        "model file (it does not start with 'GGUF'), so nothing was kept; try again later."
    ),
    "to loopback": re.escape(
        "Could not download Tiny test model: the server redirected it to 127.0.0.1, which is a "
        "loopback address (this computer); downloads go only to public internet addresses."
    ),
    "slow drip": r"The download of Tiny test model did not finish within 1 second\. (\d+) bytes "
    r"are kept; run the same download again to continue\.",
}


@pytest.mark.parametrize("case", list(SAID))
async def test_a_hostile_hub_is_one_sentence_in_the_window(
    tmp_path: Path, hub: HubServer, other: HubServer, case: str
) -> None:
    other.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    hosted = {
        "not gguf": HostedFile(PAGE),
        "to loopback": HostedFile(DATA, redirect=other.url + PATH),
        "slow drip": HostedFile(DATA, drip=0.05),
    }[case]
    hub.host(ENTRY.repo, ENTRY.filename, hosted)
    window = await window_on(tmp_path, hub, deadline=1)
    try:
        before, text = await refusal_of(window, "download:tiny", "download")
        said = re.fullmatch(SAID[case], text)
        assert said is not None, text
        kept = int(said.group(1)) if said.groups() else 0
        part = tmp_path / "models" / (ENTRY.filename + ".part")
        assert (part.read_bytes() if part.exists() else b"") == DATA[:kept]
        assert not (tmp_path / "models" / ENTRY.filename).exists()
        assert other.requests == []
        await assert_model_kept(window, before)
        assert not window.downloads.isVisible()
    finally:
        await close_test_window(window)
