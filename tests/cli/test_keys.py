"""``parley key set|delete|status`` run as a person runs them. Against a real keyring
(gnome-keyring in a private D-Bus session): status names it, a key typed at the terminal is
never shown and lands in the keyring, a piped one replaces it, delete takes it out. With no
keyring at all, each command says so and stores nothing anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.process import ROOT, parley
from tests.secrets.keyring_session import in_keyring_session, needs_keyring

REF = "openai/api-key"
TYPED = "sk-typed-Zq8Lr2Vx9Kp4Tn7Wd3Hs"
PIPED = "sk-piped-Bj1Fm5Gc0Ye6Tn7Wd3Hs"
SECRET_SERVICE = "keyring.backends.SecretService.Keyring"


@needs_keyring
def test_set_status_and_delete_against_a_real_keyring(tmp_path: Path) -> None:
    done = in_keyring_session(tmp_path, "-m", "tests.cli._key_session_child", REF, TYPED, PIPED)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["backend"] == "keyring.backends.SecretService"

    assert seen["status"] == {
        "code": 0,
        "out": f"keyring: {SECRET_SERVICE} (available)\nKeys are kept in the system keyring.\n",
        "err": "",
    }
    typed = seen["typed"]
    assert typed["code"] == 0
    assert typed["shown"].replace("\r\n", "\n") == (
        f"{REF}: \nstored {REF} in the keyring ({SECRET_SERVICE})\n"
    )  # the question, the key typed unseen, and where it went
    assert typed["held"] == TYPED

    assert seen["piped"] == {
        "code": 0,
        "out": f"stored {REF} in the keyring ({SECRET_SERVICE})\n",
        "err": "",
        "held": PIPED,
    }
    assert seen["delete"] == {"code": 0, "out": f"deleted {REF}\n", "err": "", "held": None}


def _no_keyring(tmp_path: Path) -> dict[str, str]:
    """An environment with no keyring to reach: no session bus, an empty runtime folder, a
    home of its own."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    home = tmp_path / "home"
    home.mkdir()
    return {
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "DBUS_SESSION_BUS_ADDRESS": "disabled:",
    }


NO_KEYRING = (
    "no system keyring is available (no Secret Service or KWallet is running); start your "
    "desktop's keyring (e.g. gnome-keyring) and restart Parley, or keep keys for this session only"
)


def test_without_a_keyring_each_command_says_so_and_stores_nothing(tmp_path: Path) -> None:
    env = _no_keyring(tmp_path)
    data = tmp_path / "data"
    status = parley("key", "status", data_dir=data, **env)
    assert (status.returncode, status.stderr) == (1, "")
    assert status.stdout == (
        "keyring: keyring.backends.fail.Keyring (not available)\n"
        f"Keys cannot be stored: {NO_KEYRING}.\n"
    )
    stored = _parley_with_input(PIPED + "\n", "key", "set", REF, data_dir=data, env=env)
    assert (stored.returncode, stored.stdout) == (2, "")
    assert stored.stderr == f"parley: secret {REF!r} cannot be saved: {NO_KEYRING}\n"
    deleted = parley("key", "delete", REF, data_dir=data, **env)
    assert (deleted.returncode, deleted.stdout) == (2, "")
    assert deleted.stderr == f"parley: secret {REF!r} cannot be deleted: {NO_KEYRING}\n"
    nameless = parley("key", "set", data_dir=data, **env)
    assert (nameless.returncode, nameless.stdout) == (2, "")
    assert nameless.stderr == "parley key set needs a name, e.g. openai/api-key\n"
    for folder in (tmp_path / "home", data):  # the key was written nowhere
        for path in folder.rglob("*") if folder.exists() else ():
            assert not path.is_file() or PIPED.encode() not in path.read_bytes(), path


def _parley_with_input(
    text: str, *args: str, data_dir: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``parley ARGS`` with ``text`` piped to its standard input."""
    environ = {k: v for k, v in os.environ.items() if k != "PARLEY_DATA_DIR"}
    return subprocess.run(
        [sys.executable, "-m", "app", *args], input=text, cwd=ROOT, capture_output=True,
        text=True, timeout=120, check=False,
        env={**environ, "PARLEY_DATA_DIR": str(data_dir), **env},
    )  # fmt: skip
