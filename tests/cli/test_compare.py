"""``parley compare`` in real processes on real data folders: a scripted model beside an
OpenAI-compatible server on this computer, a failing model beside one that answers, offline
mode refusing a remote model in the ledger's sentence, and a bad choice of models."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.process import new_thread_id, parley
from tests.providers.replay_server import ReplayServer, Reply, sse_events


def script(tmp_path: Path, name: str, turn: dict[str, object]) -> str:
    """A scripted model answering ``turn`` once."""
    file = tmp_path / f"{name}.json"
    file.write_text(json.dumps([turn]))
    return f"scripted:{file}"


def test_compare_prints_each_answer_with_its_figures_and_keeps_them_as_branches(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    usage = {"prompt_tokens": 12, "completion_tokens": 3}
    local = script(tmp_path, "here", {"text": "Take a jacket.", "usage": usage})
    server = ReplayServer().start()
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    remote = f"openai:gpt-4o-mini@{server.url}/v1"
    try:
        done = parley("compare", "--model", local, "--model", remote, "Oslo in May?", data_dir=data)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    # the server was asked the question itself
    sent = server.requests[0]["json"]["messages"]
    assert sent[-1] == {"role": "user", "content": "Oslo in May?"}
    first, second = done.stdout.split("\n\n")[:2]
    assert first.startswith(f"== {local} ==\nTake a jacket.\n(")
    assert re.search(r"\(\d+\.\d\d s to first token, [\d.]+ tokens/s, 3 tokens, free\)$", first)
    assert second.startswith(f"== {remote} ==\nHello, world!\n(")
    assert "4 tokens" in second  # as the server's usage says
    thread_id = new_thread_id(done.stderr)
    tree = parley("threads", "branches", thread_id, data_dir=data)
    assert tree.stdout == (
        "message 2, 2 versions:\n"
        "  1  Take a jacket.  (2 messages, shown)\n"
        "  2  Hello, world!  (2 messages)\n"
    )
    shown = parley("threads", "show", thread_id, data_dir=data)
    assert shown.stdout == "user: Oslo in May?\nassistant: Take a jacket.\n"


def test_a_model_that_fails_prints_its_sentence_and_the_others_go_on(tmp_path: Path) -> None:
    data = tmp_path / "data"
    broken = script(tmp_path, "broken", {"error": "the server went away"})
    good = script(tmp_path, "good", {"text": "Pack light."})
    also = script(tmp_path, "also", {"text": "Wear boots."})
    done = parley(
        "compare", "--model", broken, "--model", good, "--model", also, "Oslo?", data_dir=data
    )
    assert done.returncode == 0, done.stderr
    assert f"== {broken} ==\nfailed: the server went away\n\n" in done.stdout
    assert f"== {good} ==\nPack light.\n" in done.stdout
    assert f"== {also} ==\nWear boots.\n" in done.stdout
    thread_id = new_thread_id(done.stderr)
    tree = parley("threads", "branches", thread_id, data_dir=data)
    assert "1  Pack light.  (2 messages, shown)" in tree.stdout
    assert "2  Wear boots.  (2 messages)" in tree.stdout


def test_offline_a_remote_model_is_refused_in_the_ledgers_sentence(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = ReplayServer(host="127.0.0.2")
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    server.start()
    remote = f"openai:m@{server.url}/v1"
    here = script(tmp_path, "here", {"text": "Offline and fine."})
    try:
        done = parley(
            "--offline", "compare", "--model", remote, "--model", here, "Hi", data_dir=data
        )
        assert server.requests == []
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    host_port = server.url.removeprefix("http://")
    assert (
        f"== {remote} ==\nfailed: Parley is offline, so it did not connect to {host_port} "
        f"for the model {remote}. To allow it, turn offline mode off"
    ) in done.stdout
    assert f"== {here} ==\nOffline and fine.\n" in done.stdout
    ledger = parley("network", data_dir=data)
    assert f"{host_port}  the model {remote}  refused (offline)" in ledger.stdout


def test_a_bad_choice_of_models_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    one = script(tmp_path, "one", {"text": "x"})
    alone = parley("compare", "--model", one, "Hi", data_dir=data)
    assert alone.returncode == 2
    assert alone.stderr == ("parley: compare takes 2 to 4 models, not 1; name each with --model\n")
    bad = parley("compare", "--model", one, "--model", "nonsense", "Hi", data_dir=data)
    assert bad.returncode == 2 and "unknown model spec" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert parley("threads", data_dir=data).stdout == ""


@pytest.mark.slow
def test_the_bundled_model_answers_beside_a_remote_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = ReplayServer().start()
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    remote = f"openai:gpt-4o-mini@{server.url}/v1"
    try:
        done = parley(
            "compare", "--model", "local", "--model", remote, "Capital of France? One word.",
            data_dir=data, timeout=600,
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    local, far = done.stdout.split("\n\n")[:2]
    assert local.startswith("== local ==\n")
    assert re.search(r"\(\d+\.\d\d s to first token, [\d.]+ tokens/s, \d+ tokens?, free\)$", local)
    assert far.startswith(f"== {remote} ==\nHello, world!\n")
    tree = parley("threads", "branches", new_thread_id(done.stderr), data_dir=data)
    assert "message 2, 2 versions:" in tree.stdout
