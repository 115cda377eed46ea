"""``parley`` opens the window: ``--screenshot`` renders it offscreen to a PNG, and with no
display it says so in one line and chats in the terminal instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]


def test_screenshot_renders_the_window_to_a_png(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "--data-dir",
            str(tmp_path / "data"),
            "--screenshot",
            str(out),
            "--theme",
            "dark",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    # dark theme: the chat's background is dark, and the image is not one flat colour
    assert image.pixelColor(700, 300).lightness() < 80
    colours = {image.pixel(x, y) for x in range(0, 1280, 37) for y in range(0, 800, 29)}
    assert len(colours) > 5
    assert (tmp_path / "data" / "parley.db").exists()


def test_without_a_display_parley_says_so_and_chats_in_the_terminal(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    script = tmp_path / "script.json"
    script.write_text('[{"text": "Hello from the terminal."}]')
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "--data-dir",
            str(tmp_path / "data"),
            "--model",
            f"scripted:{script}",
        ],
        cwd=ROOT,
        env=env,
        input="hi\n/quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (
        "parley: no display found (DISPLAY is not set); starting the terminal chat"
    )
    assert "Hello from the terminal." in done.stdout
