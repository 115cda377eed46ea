"""Runs inside a private D-Bus session with a real gnome-keyring (see test_serve.py): makes a
key with ``parley serve keys add``, starts ``parley serve`` on a free port with a scripted
model, asks it through the official ``openai`` SDK, removes the key with ``parley serve keys
remove`` while the server runs, asks again, and stops the server with Ctrl+C.

Usage: python -m tests.cli._serve_session_child DATA_DIR SCRIPT.json
Prints one JSON object with what each step said.
"""

from __future__ import annotations

import hashlib
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import keyring
import openai

PARLEY = [sys.executable, "-m", "app"]


def run(*args: str, data_dir: str) -> dict[str, Any]:
    """``parley ARGS --data-dir DATA_DIR``: exit status and what it said."""
    done = subprocess.run(
        [*PARLEY, *args, "--data-dir", data_dir],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr}


def main(data_dir: str, script: str) -> dict[str, Any]:
    """Every step and what it gave."""
    steps: dict[str, Any] = {"backend": type(keyring.get_keyring()).__module__}
    made = run("serve", "keys", "add", "ci-bot", data_dir=data_dir)
    key = made["out"].strip()
    steps["add"] = {**made, "out": "KEY\n" if key else made["out"]}
    [listed] = json.loads((Path(data_dir) / "server_keys.json").read_text(encoding="utf-8"))
    held = keyring.get_password("parley", f"server-key/{listed['id']}")
    steps["held"] = "the digest" if held == hashlib.sha256(key.encode()).hexdigest() else held
    server = subprocess.Popen(
        [*PARLEY, "serve", "--port", "0", "--model", f"scripted:{script}", "--data-dir", data_dir],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        said = server.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/v1)", said)
        steps["said"] = said.replace(found.group(1), "URL") if found else said
        if found:
            api = openai.OpenAI(base_url=found.group(1), api_key=key, max_retries=0)
            with api:
                ask = [{"role": "user", "content": "Why are there tides?"}]
                reply = api.chat.completions.create(model="parley", messages=ask)
                steps["answer"] = reply.choices[0].message.content
                steps["remove"] = run("serve", "keys", "remove", "ci-bot", data_dir=data_dir)
                try:
                    api.chat.completions.create(model="parley", messages=ask)
                    steps["after_remove"] = "answered"
                except openai.APIStatusError as exc:
                    steps["after_remove"] = exc.status_code
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    steps["stopped"] = {"code": server.returncode, "err": err}
    steps["list"] = run("serve", "keys", "list", data_dir=data_dir)
    return steps


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:3])))
