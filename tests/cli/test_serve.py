"""``parley serve`` run as a person runs it, in a process of its own: it says where it
serves, refuses every request without a key of its own, stops on Ctrl+C, and will not listen
on another address before a key exists."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from tests.cli.process import ROOT, parley
from tests.cli.test_keys import NO_KEYRING, _no_keyring
from tests.secrets.keyring_session import in_keyring_session, needs_keyring


def test_it_serves_on_this_computer_and_refuses_requests_without_a_key(tmp_path: Path) -> None:
    env = {**os.environ, **_no_keyring(tmp_path), "PARLEY_DATA_DIR": str(tmp_path / "data")}
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        said = process.stdout.readline()
        found = re.fullmatch(
            r"Parley serves the OpenAI and Anthropic APIs at (http://127\.0\.0\.1:\d+/v1) "
            r"\(Ctrl\+C stops it\)\n",
            said,
        )
        assert found, said
        assert process.stdout.readline() == (
            "No key exists yet, so every request is refused: parley serve keys add NAME\n"
        )
        base = found.group(1)
        bare = httpx.get(f"{base}/models", timeout=30)
        guessed = httpx.get(f"{base}/models", headers={"Authorization": "Bearer pk-guess"})
        assert (bare.status_code, guessed.status_code) == (401, 401)
        assert bare.json()["error"]["code"] == "missing_api_key"
        assert guessed.json()["error"]["code"] == "invalid_api_key"
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (0, "")


def test_another_address_needs_a_key_first(tmp_path: Path) -> None:
    env = _no_keyring(tmp_path)
    refused = parley("serve", "--host", "0.0.0.0", "--port", "0", data_dir=tmp_path, **env)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "parley: serving on 0.0.0.0 lets other computers connect, so it needs a key first: "
        "parley serve keys add NAME\n"
    )


def test_keys_without_a_keyring_say_so_and_make_nothing(tmp_path: Path) -> None:
    env = _no_keyring(tmp_path)
    made = parley("serve", "keys", "add", "ci-bot", data_dir=tmp_path, **env)
    assert (made.returncode, made.stdout) == (2, "")
    assert made.stderr == f"parley: the key ci-bot was not made: {NO_KEYRING}\n"
    listed = parley("serve", "keys", "list", data_dir=tmp_path, **env)
    assert (listed.returncode, listed.stderr) == (0, "")
    assert listed.stdout == "no keys yet; make one with: parley serve keys add NAME\n"
    removed = parley("serve", "keys", "remove", "ci-bot", data_dir=tmp_path, **env)
    assert (removed.returncode, removed.stderr) == (1, "there is no key called ci-bot\n")


@needs_keyring
def test_a_key_made_in_a_real_keyring_is_taken_until_it_is_removed(tmp_path: Path) -> None:
    script = tmp_path / "tides.json"
    script.write_text(json.dumps(["The moon pulls the sea."] * 3), encoding="utf-8")
    data = tmp_path / "data"
    done = in_keyring_session(
        tmp_path, "-m", "tests.cli._serve_session_child", str(data), str(script)
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["backend"] == "keyring.backends.SecretService"
    assert seen["add"] == {
        "code": 0,
        "out": "KEY\n",
        "err": "This is key ci-bot; it is shown only now. Clients send it as "
        "Authorization: Bearer KEY.\n",
    }
    assert seen["held"] == "the digest"  # the keyring holds the key's digest, not the key
    assert seen["said"] == "Parley serves the OpenAI and Anthropic APIs at URL (Ctrl+C stops it)\n"
    assert seen["answer"] == "The moon pulls the sea."
    assert seen["remove"] == {"code": 0, "out": "removed ci-bot: it no longer works\n", "err": ""}
    assert seen["after_remove"] == 401
    assert seen["stopped"] == {"code": 0, "err": ""}
    assert seen["list"]["out"] == "no keys yet; make one with: parley serve keys add NAME\n"
    listed = (data / "server_keys.json").read_text(encoding="utf-8")
    assert json.loads(listed) == []


def test_a_port_in_use_is_named(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = parley("serve", "--port", str(port), data_dir=tmp_path, **_no_keyring(tmp_path))
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"parley: cannot listen on 127.0.0.1 port {port}: Address already in use\n"
    )
