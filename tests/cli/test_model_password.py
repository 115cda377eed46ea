"""``parley chat --model`` with a password in the model's address: refused in one sentence
that points to the keyring, and the password is written nowhere in the data folder."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_chat import parley


def test_a_model_address_with_a_password_is_refused_and_kept_nowhere(tmp_path: Path) -> None:
    spec = "openai:gpt@http://alice:hunter2secret@127.0.0.1:9/v1"
    done = parley("chat", "--model", spec, "Hello", data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "parley: the model address holds a user name or password, which Parley never keeps in "
        "a model spec; put the password in the keyring: parley key set "
        "openai/127.0.0.1:9/api-key, and use 'openai:gpt@http://127.0.0.1:9/v1'\n"
    )
    kept = [p for p in tmp_path.rglob("*") if p.is_file() and b"hunter2" in p.read_bytes()]
    assert kept == []
    assert parley("threads", data_dir=tmp_path).stdout.strip() in ("", "No threads yet.")
