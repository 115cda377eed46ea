"""Runs inside a private D-Bus session with a real gnome-keyring (see test_keys.py): runs
``parley key ...`` as a person does, typing the key at a terminal or piping it in, and reads
the keyring itself between the commands.

Usage: python -m tests.cli._key_session_child REF TYPED PIPED
Prints one JSON object with what each step said and what the keyring held after it.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from typing import Any

import keyring

PARLEY = [sys.executable, "-m", "app", "key"]


def run(*args: str, stdin: str = "") -> dict[str, Any]:
    """``parley key ARGS`` with ``stdin`` piped in (no terminal)."""
    done = subprocess.run(
        [*PARLEY, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr}


def _read(fd: int, deadline: float, until: bytes | None = None) -> bytes:
    """What the terminal ``fd`` shows until ``until`` appears (``None``: until it closes)."""
    seen = b""
    while (until is None or until not in seen) and time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 1024)
        except OSError:  # the terminal closed: the program ended
            break
        if not chunk:
            break
        seen += chunk
    return seen


def typed_at_a_terminal(ref: str, key: str) -> dict[str, Any]:
    """``parley key set REF`` on a terminal of its own: wait for its question, type ``key``
    and Enter, and return everything the terminal showed and the exit status."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its terminal is the new one
        os.execv(sys.executable, [*PARLEY, "set", ref])
    deadline = time.monotonic() + 60
    shown = _read(fd, deadline, f"{ref}: ".encode())
    os.write(fd, key.encode() + b"\r")
    shown += _read(fd, deadline)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return {"code": os.waitstatus_to_exitcode(status), "shown": shown.decode(errors="replace")}


def main(ref: str, typed: str, piped: str) -> dict[str, Any]:
    """Every step, with what the keyring held after it."""

    def held() -> str | None:
        return keyring.get_password("parley", ref)

    steps: dict[str, Any] = {"backend": type(keyring.get_keyring()).__module__}
    steps["status"] = run("status")
    steps["typed"] = typed_at_a_terminal(ref, typed)
    steps["typed"]["held"] = held()
    steps["piped"] = run("set", ref, stdin=piped + "\n")
    steps["piped"]["held"] = held()
    steps["delete"] = run("delete", ref)
    steps["delete"]["held"] = held()
    return steps


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))
