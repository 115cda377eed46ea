"""Secrets against a real Secret Service: gnome-keyring in a private D-Bus session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.secrets.keyring_session import in_keyring_session, needs_keyring


def _in_session(tmp_path: Path, mode: str, unlock: bool) -> dict[str, Any]:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    child = ["-m", "tests.secrets._secret_service_child", str(data), mode]
    done = in_keyring_session(tmp_path, *child, unlock=unlock)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@needs_keyring
def test_a_secret_from_the_real_keyring_reaches_only_the_tool(tmp_path: Path) -> None:
    seen = _in_session(tmp_path, "unlocked", unlock=True)
    assert seen["backend"] == "keyring.backends.SecretService"
    assert seen["result"].startswith("ping: called with")
    assert "MARKER" not in seen["result"]  # redacted before the model saw it
    assert seen["in_files"]  # the database was written ...
    assert not any(seen["in_files"].values())  # ... and holds no trace of the secret
    assert seen["in_export"] is False
    assert seen["sent_to_model"] is False
    assert seen["in_state"] is False


@needs_keyring
def test_a_locked_keyring_is_a_clear_error(tmp_path: Path) -> None:
    _in_session(tmp_path, "unlocked", unlock=True)  # creates the keyring and stores the key
    for leftover in (tmp_path / "data").iterdir():
        leftover.unlink()
    seen = _in_session(tmp_path, "locked", unlock=False)  # next login: the keyring is locked
    assert seen["error"] is not None
    assert "crm/api-token" in seen["error"]
    assert "keyring is locked" in seen["error"]
