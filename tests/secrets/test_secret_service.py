"""Secrets against a real Secret Service: gnome-keyring in a private D-Bus session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

needs_keyring = pytest.mark.skipif(
    not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")),
    reason="gnome-keyring and dbus are installed by `make test` (install-system-deps.sh --test)",
)


def _in_session(tmp_path: Path, mode: str, unlock: bool) -> dict[str, Any]:
    home = tmp_path / "home"
    runtime = tmp_path / "run"
    data = tmp_path / "data"
    for d in (home, runtime, data):
        d.mkdir(exist_ok=True)
    runtime.chmod(0o700)
    start = (
        "printf %s pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null"
        if unlock
        else "gnome-keyring-daemon --components=secrets >/dev/null"
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_DATA_HOME": str(home / ".local/share"),
    }
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    child = [sys.executable, "-m", "tests.secrets._secret_service_child", str(data), mode]
    done = subprocess.run(
        ["dbus-run-session", "--", "bash", "-c", f'{start} && exec "$@"', "_", *child],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
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
