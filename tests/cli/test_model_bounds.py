"""``parley models download`` against a hostile hub: each bound it keeps and each malformed
answer ends in one sentence and exit status 2, never a traceback, and installs nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.services.hub_server import HostedFile, HubServer, serving
from tests.services.models.test_catalogue import DATA, parley

hub = pytest.fixture(serving, name="hub")
other = pytest.fixture(serving, name="other")

REPO = "bartowski/Qwen2.5-0.5B-Instruct-GGUF"
FILE = "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"
PATH = f"/{REPO}/resolve/main/{FILE}"
TITLE = "Qwen2.5 0.5B Instruct (Q4_K_M)"
BOUND = int(397_808_192 * 1.01)
PAGE = b"<!DOCTYPE html><html><body>Sign in to continue</body></html>".ljust(300_000)


def fault(hub: HubServer, other: HubServer, case: str) -> HostedFile:
    """The hosted file for each hostile ``case``."""
    other.host(REPO, FILE, HostedFile(DATA))
    cases: dict[str, Callable[[], HostedFile]] = {
        "too big": lambda: HostedFile(DATA, linked_size="500000000"),
        "longer than announced": lambda: HostedFile(DATA, chunked=True, linked_size="100000"),
        "not gguf": lambda: HostedFile(PAGE),
        "slow drip": lambda: HostedFile(DATA, drip=0.05),
        "to loopback": lambda: HostedFile(DATA, redirect=f"{other.url}{PATH}"),
        "loop": lambda: HostedFile(DATA, redirect=PATH),
        "bad length": lambda: HostedFile(DATA, linked_size="", content_length="3e5"),
        "bad size": lambda: HostedFile(DATA, linked_size="1e9"),
    }
    return cases[case]()


SAID = {
    "too big": f"the server offers 500000000 bytes for it, more than the {BOUND} it can be. "
    "Try again later.",
    "longer than announced": "the server sent more than the 100000 bytes it announced, so "
    "nothing was kept; try again later.",
    "not gguf": "the server sent something that is not a GGUF model file (it does not start "
    "with 'GGUF'), so nothing was kept; try again later.",
    "to loopback": "the server redirected it to 127.0.0.1, which is a loopback address (this "
    "computer); downloads go only to public internet addresses.",
    "loop": "the address redirected more than 5 times; stopped following. Try again later.",
    "bad length": "the server's answer is not valid HTTP ('bad Content-Length'). Try again later.",
    "bad size": "the server sent a malformed X-Linked-Size header ('1e9'). Try again later.",
}


@pytest.mark.slow
@pytest.mark.parametrize("case", [*SAID, "slow drip"])
def test_a_hostile_hub_gets_one_sentence_and_nothing_installed(
    tmp_path: Path, hub: HubServer, other: HubServer, case: str
) -> None:
    hub.host(REPO, FILE, fault(hub, other, case))
    got = parley(
        "models", "download", "qwen2.5-0.5b", "--deadline", "1", data_dir=tmp_path, hub=hub
    )
    assert got.returncode == 2, got.stderr
    assert "Traceback" not in got.stderr
    last = got.stderr.splitlines()[-1]
    if case == "slow drip":
        assert last.startswith(f"parley: The download of {TITLE} did not finish within 1 second. ")
        assert last.endswith(" bytes are kept; run the same download again to continue.")
    else:
        assert last == f"parley: Could not download {TITLE}: {SAID[case]}"
    assert other.requests == []
    assert not (tmp_path / "models" / FILE).exists()
    status = "unfinished" if case == "slow drip" else "not downloaded"
    assert status in parley("models", data_dir=tmp_path, hub=hub).stdout.splitlines()[1]
