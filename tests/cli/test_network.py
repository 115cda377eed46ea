"""``parley network`` and ``--offline`` / ``PARLEY_OFFLINE=1``, run as a user would: a local
turn, a search and an export open no connection to another computer; offline, a remote
model and a download on 127.0.0.2 (a stand-in for another computer) are refused before the
server sees anything, each in one sentence, and the ledger lists what was refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.providers.replay_server import ReplayServer, Reply, sse_events
from tests.services.hub_server import HubServer

ROOT = Path(__file__).resolve().parents[2]


def parley(
    *args: str, data_dir: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PARLEY_DATA_DIR": str(data_dir), **(env or {})}
    environ.pop("PARLEY_OFFLINE", None) if not env or "PARLEY_OFFLINE" not in env else None
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=environ, check=False,
    )  # fmt: skip


def _remote_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "  remote  " in line]


def test_a_local_turn_a_search_and_an_export_connect_to_no_other_computer(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Forty-two."}]))
    chat = parley("chat", "--model", f"scripted:{script}", "The answer?", data_dir=tmp_path)
    assert chat.returncode == 0, chat.stderr
    assert parley("threads", "--search", "answer", data_dir=tmp_path).returncode == 0
    thread_id = parley("threads", data_dir=tmp_path).stdout.split()[0]
    exported = parley("threads", "export", thread_id, data_dir=tmp_path)
    assert exported.returncode == 0 and "Forty-two." in exported.stdout, exported.stderr
    listed = parley("network", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert _remote_lines(listed.stdout) == []
    last = listed.stdout.splitlines()[-1]
    assert last.startswith("Parley has made no connection yet") or last.endswith(
        ", 0 to other computers."
    ), listed.stdout


def test_offline_refuses_a_remote_model_before_the_server_sees_it(tmp_path: Path) -> None:
    server = ReplayServer(host="127.0.0.2")
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    server.start()
    try:
        spec = f"openai:m@{server.url}/v1"
        done = parley("--offline", "chat", "--model", spec, "Hello", data_dir=tmp_path)
        also = parley(
            "chat", "--model", spec, "Hello", data_dir=tmp_path, env={"PARLEY_OFFLINE": "1"}
        )
        assert server.requests == []
    finally:
        server.stop()
    host_port = server.url.removeprefix("http://")
    for got in (done, also):
        assert got.returncode == 1, got.stderr
        assert (
            f"Parley is offline, so it did not connect to {host_port} for the model {spec}. "
            "To allow it, turn offline mode off"
        ) in got.stderr
        assert "Traceback" not in got.stderr
    ledger = parley("network", data_dir=tmp_path)
    rows = _remote_lines(ledger.stdout)
    assert len(rows) == 2, ledger.stdout
    assert all(f"{host_port}  the model {spec}  refused (offline)" in row for row in rows)


def test_offline_refuses_a_download_in_one_sentence(tmp_path: Path) -> None:
    hub = HubServer().start("127.0.0.2")
    try:
        done = parley(
            "models", "download", "qwen2.5-0.5b", data_dir=tmp_path,
            env={"PARLEY_OFFLINE": "1", "PARLEY_HUB_URL": hub.url},
        )  # fmt: skip
        assert hub.requests == []
    finally:
        hub.stop()
    assert done.returncode == 2, done.stderr
    last = done.stderr.splitlines()[-1]
    host_port = hub.url.removeprefix("http://")
    assert last.startswith(
        f"parley: Parley is offline, so it did not connect to {host_port} for downloading "
        "qwen2.5-0.5b. To allow it, turn offline mode off"
    ), done.stderr
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").glob("*.gguf"))


@pytest.mark.slow
def test_a_turn_on_the_bundled_model_connects_to_no_other_computer(tmp_path: Path) -> None:
    chat = parley("chat", "What is the capital of France?", data_dir=tmp_path)
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.strip()
    listed = parley("network", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert _remote_lines(listed.stdout) == [], listed.stdout
