"""Render the README's picture of Compare…: one question answered side by side by three
models, each column with its figures, in the real window offscreen. The models are scripted
stand-ins named as the models they stand for (with those models' prices), so the picture
needs no network, keys or model files.

Run: ``.venv/bin/python packaging/compare_shot.py [OUT_DIR]`` (default resources/screenshots).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

QUESTION = "Why is the sky blue? Two sentences."
MODELS = {
    "local": (
        "Sunlight scatters off the molecules of the air, and blue light, with its shorter "
        "waves, scatters far more than red. So blue reaches your eyes from every part of "
        "the sky.",
        (0.0, 0.0),
        0.03,
    ),
    "openai:gpt-4o-mini": (
        "Air molecules scatter short wavelengths much more strongly than long ones "
        "(**Rayleigh scattering**, about 1/λ⁴). Blue light is scattered all across the sky "
        "while most red passes straight through, so the sky looks blue.",
        (0.15, 0.6),
        0.012,
    ),
    "anthropic:claude-haiku-4-5": (
        "Sunlight is made of every colour, and the nitrogen and oxygen in the air scatter the "
        "shorter blue waves in every direction. Violet scatters even more, but the Sun sends "
        "less of it and our eyes are less sensitive to it, so we see blue.",
        (1.0, 5.0),
        0.018,
    ),
}


def _resolver() -> object:
    from app.core.models import ScriptedChatModel
    from app.core.models.protocol import ModelInfo, ModelPrice

    built: dict[str, ScriptedChatModel] = {}

    def resolve(spec: str) -> ScriptedChatModel:
        if spec not in built:
            text, (inp, outp), delay = MODELS[spec]
            tokens = len(text) // 4
            info = ModelInfo(
                spec=spec,
                name=spec,
                provider=spec.partition(":")[0],
                price=ModelPrice(input_per_mtok=inp, output_per_mtok=outp),
            )
            turn = {"text": text, "usage": {"prompt_tokens": 31, "completion_tokens": tokens}}
            built[spec] = ScriptedChatModel([turn] * 4, chunk_size=5, delay=delay, info=info)
        return built[spec]

    return resolve


def _picker_open(comparing: Any) -> bool:
    return comparing.picker is not None


async def _until(done: Callable[[], bool]) -> None:
    """Wait (up to a minute) until ``done()``."""
    for _ in range(1200):
        if done():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the comparison did not finish in a minute")


async def _shoot(out: Path, data: Path) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from app.services.settings import AppSettings
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.tasks import spawn
    from app.ui.theme import apply_theme
    from app.ui.window import MainWindow

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    written = []
    for theme in ("light", "dark"):
        ws = await Workspace.open(
            data / theme, resolve_model=_resolver(), secret_resolver=lambda _ref: ""
        )
        others = [s for s in MODELS if s != "local"]
        ws.settings.use(AppSettings(default_model="local", endpoints=others, theme=theme))
        apply_theme(app, theme)
        window = MainWindow(ws)
        window.resize(1180, 640)
        window.show()
        await window.start(preload=False)
        spawn(window.comparing.start(QUESTION))
        comparing = window.comparing
        await _until(partial(_picker_open, comparing))
        picker = comparing.picker
        assert picker is not None
        for spec in MODELS:
            picker.tick(spec)
        picker.accept()
        await _until(window.comparing.view.close_button.isEnabled)
        await asyncio.sleep(0.4)
        target = out / f"compare-{theme}.png"
        window.grab().save(str(target))
        written.append(target)
        await close_window(window)
    return written


def main(out: Path) -> list[Path]:
    """Write ``compare-light.png`` and ``compare-dark.png`` into ``out``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(["parley-screenshots"])
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory() as tmp:
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            return loop.run_until_complete(_shoot(out, Path(tmp)))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources/screenshots"):
        print(path)
