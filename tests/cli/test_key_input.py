"""``parley key set|delete`` with the key piped in: surrounding spaces are dropped, bytes that
are not text are refused, and a missing name is one sentence (a real process, with the keyring
backend chosen the way keyring lets a person choose one: ``PYTHON_KEYRING_BACKEND``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.process import ROOT

NO_KEYRING = "keyring.backends.fail.Keyring"
MEMORY = "tests.services.memory_keyring.MemoryKeyring"
WHY = (
    "no system keyring is available (no Secret Service or KWallet is running); start your "
    "desktop's keyring (e.g. gnome-keyring) and restart Parley, or keep keys for this session only"
)


def key(
    *args: str, backend: str, data_dir: Path, stdin: bytes = b""
) -> subprocess.CompletedProcess[str]:
    """``parley key ARGS`` with ``stdin`` on its standard input."""
    env = {**os.environ, "PARLEY_DATA_DIR": str(data_dir), "PYTHON_KEYRING_BACKEND": backend}
    done = subprocess.run(
        [sys.executable, "-m", "app", "key", *args],
        cwd=ROOT, input=stdin, capture_output=True, timeout=60, env=env, check=False,
    )  # fmt: skip
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def test_status_names_the_backend_and_says_why_keys_cannot_be_kept(tmp_path: Path) -> None:
    done = key("status", backend=NO_KEYRING, data_dir=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == (
        f"keyring: {NO_KEYRING} (not available)\nKeys cannot be stored: {WHY}.\n"
    )


def test_a_key_read_from_stdin_is_stored_in_the_keyring(tmp_path: Path) -> None:
    done = key("set", "openai/api-key", backend=MEMORY, data_dir=tmp_path, stdin=b"  sk-1234 \n")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"stored openai/api-key in the keyring ({MEMORY})\n"
    deleted = key("delete", "openai/api-key", backend=MEMORY, data_dir=tmp_path)
    assert (deleted.returncode, deleted.stdout) == (0, "deleted openai/api-key\n")


def test_without_a_keyring_or_a_name_or_with_bytes_each_is_one_sentence(tmp_path: Path) -> None:
    refused = key("set", "openai/api-key", backend=NO_KEYRING, data_dir=tmp_path, stdin=b"sk\n")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"parley: secret 'openai/api-key' cannot be saved: {WHY}\n"
    unnamed = key("delete", backend=MEMORY, data_dir=tmp_path)
    assert (unnamed.returncode, unnamed.stdout) == (2, "")
    assert unnamed.stderr == "parley key delete needs a name, e.g. openai/api-key\n"
    binary = key("set", "openai/api-key", backend=MEMORY, data_dir=tmp_path, stdin=b"sk-\xff\n")
    assert (binary.returncode, binary.stdout) == (2, "")
    assert binary.stderr == (
        "openai/api-key: the key holds bytes that are not text; nothing was stored\n"
    )
