"""Parley's child processes start from Parley's own entry: a program that embeds Parley
without a main guard runs its top level once, not once more in every child."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.core.children import host_env

_HOST = """
import threading
print("the host's top level ran", flush=True)
from app.services.knowledge.reader import PassageReader
from app.ui.chat.math.tex_process import TexProcess
reader = PassageReader()
text = b"The harbour floods at the spring tide."
passages = reader.passages(text, "a.txt", 1000, threading.Event())
print("read:", passages[0].text, flush=True)
reader.close()
tex = TexProcess()
print("typeset:", type(tex.svg((r"\\frac{a}{b}", True, 16.0, "#000000"), 60)).__name__, flush=True)
print("children:", reader.started, tex.started, repr(tex.unavailable), flush=True)
tex.close()
"""


def test_a_host_script_without_a_main_guard_runs_once(tmp_path: Path) -> None:
    host = tmp_path / "host.py"
    host.write_text(_HOST, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(host)],
        cwd=tmp_path,
        env=host_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.stdout.splitlines() == [
        "the host's top level ran",
        "read: The harbour floods at the spring tide.",
        "typeset: FormulaSvg",
        "children: 1 1 ''",
    ], done.stderr
    assert done.returncode == 0


_FROZEN_HOST = """
import sys, threading
sys.frozen = True  # as in the packaged app: the executable is Parley's entry itself
sys.executable = sys.argv[1]
print("the host's top level ran", flush=True)
from app.services.knowledge.reader import PassageReader
reader = PassageReader()
passages = reader.passages(b"The copper bridge.", "a.txt", 1000, threading.Event())
print("read:", passages[0].text, flush=True)
reader.close()
"""


def test_the_packaged_app_starts_its_children_through_its_own_executable(
    tmp_path: Path,
) -> None:
    bundle = tmp_path / "parley"  # what the bundle's executable does: run app/__main__.py
    bundle.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c '
        '"import sys; from app.__main__ import main; sys.exit(main())" "$@"\n',
        encoding="utf-8",
    )
    bundle.chmod(0o755)
    host = tmp_path / "host.py"
    host.write_text(_FROZEN_HOST, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(host), str(bundle)],
        cwd=tmp_path,
        env=host_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.stdout.splitlines() == [
        "the host's top level ran",
        "read: The copper bridge.",
    ], done.stderr
