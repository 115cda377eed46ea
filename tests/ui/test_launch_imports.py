"""What the window's code brings in as it starts: the HTTP client, numpy, the provider SDKs,
the MCP client, the local server, the speech engines, the Markdown parser and code
highlighter, the keyring, the web tools' HTML converter and the dialogs opened later all
load with the first thing that needs them, never with the window (each costs start-up time
and memory; numpy alone is a large part of a launch); QtAwesome's Qt layer never loads (the
icon font is read directly)."""

from __future__ import annotations

import os
import subprocess
import sys

HEAVY = ("httpx", "numpy", "openai", "anthropic", "mcp", "uvicorn", "faster_whisper", "piper")
LATER = ("markdown_it", "pygments", "keyring", "html2text", "qtawesome", "qtpy")
STANDARD_LATER = ("multiprocessing", "urllib.request")
"""The child processes' connections and the Ollama list's HTTP load with their first use."""
LATER_PARTS = (
    "app.ui.settings.dialog",
    "app.ui.agents.editor",
    "app.services.agents.files",
    "app.media.ingest",
)


def _loaded_with_the_window(names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` are in ``sys.modules`` once the window's code is imported (in a
    fresh process)."""
    script = (
        "import sys, app.ui.app, app.ui.window, app.services.workspace\n"
        f"print(' '.join(m for m in {names!r} if m in sys.modules) or 'none')\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_windows_code_loads_none_of_the_heavy_libraries() -> None:
    assert _loaded_with_the_window(HEAVY) == ["none"]


def test_the_window_starts_without_what_only_later_work_needs() -> None:
    assert _loaded_with_the_window(LATER + LATER_PARTS + STANDARD_LATER) == ["none"]


def test_the_windows_code_builds_no_message_validator_and_reads_no_source() -> None:
    script = (
        "import linecache, app.ui.app, app.ui.window\n"
        "from app.core.state import Message\n"
        "print(Message.__pydantic_complete__, len(linecache.cache))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    complete, cached_files = done.stdout.split()
    assert complete == "False"  # built at first use or by the warm-up
    assert int(cached_files) < 10  # PySide6's hook read every module's source: some 500
