"""What the window's code brings in as it starts: the HTTP client, numpy, the provider SDKs,
the MCP client, the local server and the speech engines all load with the first thing that
needs them, never with the window (each costs start-up time and memory; numpy alone is a
large part of a launch)."""

from __future__ import annotations

import os
import subprocess
import sys

HEAVY = ("httpx", "numpy", "openai", "anthropic", "mcp", "uvicorn", "faster_whisper", "piper")


def test_the_windows_code_loads_none_of_the_heavy_libraries() -> None:
    script = (
        "import sys, app.ui.app, app.ui.window, app.services.workspace\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules) or 'none')\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["none"]
