"""A real Secret Service for tests: a program run inside a private D-Bus session with its own
gnome-keyring, under a home and runtime folder of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

needs_keyring = pytest.mark.skipif(
    not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")),
    reason="gnome-keyring and dbus are installed by `make test` (install-system-deps.sh --test)",
)


def in_keyring_session(
    tmp_path: Path, *args: str, unlock: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGS`` (from the project's root) in a private D-Bus session whose
    gnome-keyring is unlocked (``unlock``) or locked; home, runtime folder and keyring live
    under ``tmp_path`` and last across calls with the same ``tmp_path``."""
    home = tmp_path / "home"
    runtime = tmp_path / "run"
    for d in (home, runtime):
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
    return subprocess.run(
        ["dbus-run-session", "--", "bash", "-c", f'{start} && exec "$@"', "_",
         sys.executable, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
