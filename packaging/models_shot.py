"""Render the model picker's list (``models.png``) and Settings > Network with a day of
connections in its ledger (``network.png``), each in light and dark (``NAME-dark.png``),
offscreen.

The picker lists the bundled model, a catalogue model and a file added from disk (small files
that only begin as GGUF does: nothing loads them), and the catalogue's models to download.

Run: ``.venv/bin/python packaging/models_shot.py [OUT_DIR]`` (default resources/screenshots);
``packaging/screenshots.py`` runs it too.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCREEN = {"name": "shots", "x": 0, "y": 0, "width": 3840, "height": 2160, "logicalDpi": 96,
          "logicalBaseDpi": 96, "dpr": 1}  # fmt: skip

CONNECTIONS = [
    # minutes ago, host, port, what for, this computer, outcome, bytes sent, received
    (9, "api.openai.com", 443, "the model openai/gpt-4o-mini", False, "allowed", 6_310, 18_944),
    (31, "huggingface.co", 443, "downloading qwen2.5-0.5b", False, "allowed", 2_106, 7_840),
    (
        32,
        "cdn-lfs.hf.co",
        443,
        "downloading qwen2.5-0.5b",
        False,
        "allowed",
        4_020,
        491_400_000,
    ),
    (48, "api.anthropic.com", 443, "the model anthropic/claude-haiku", False, "refused", 0, 0),
    (75, "example.org", 443, "the tool http_request", False, "allowed", 512, 1_270),
    (140, "127.0.0.1", 8765, "the MCP server notes", True, "allowed", 930, 3_688),
]


async def _seed(data: Path, _script: Path) -> str:
    from app.core.netgate import Connection
    from app.services.models.catalogue import GGUF_MAGIC, InstalledModel, ModelLibrary
    from app.services.workspace import Workspace

    library = ModelLibrary(data)
    entry = library.entry("qwen2.5-0.5b")
    library.dir.mkdir(parents=True, exist_ok=True)
    fetched = library.dir / entry.filename
    fetched.write_bytes(GGUF_MAGIC + b"\0" * 64)
    models = library._manifest()
    models[entry.name] = InstalledModel(
        entry.name, str(fetched), "catalogue", fetched.stat().st_size, entry.sha256
    )
    library._save(models)
    added = data / "My-Model.Q4.gguf"
    added.write_bytes(GGUF_MAGIC + b"\0" * 64)
    library.add(added)

    ws = await Workspace.open(data)
    for title in ("Trip to Oslo: packing list", "Fix the CSV import"):
        await ws.threads.create(title=title)
    thread = await ws.threads.create(title="Which model for summaries?")
    now = time.time()
    await ws._store.record_connections(
        [
            Connection(
                now - minutes * 60, host, port, what, local, outcome,  # type: ignore[arg-type]
                ref=f"shot-{n}", sent=sent or None, received=received or None,
            )
            for n, (minutes, host, port, what, local, outcome, sent, received)
            in enumerate(reversed(CONNECTIONS))
        ]
    )  # fmt: skip
    await ws.aclose()
    return thread.id


async def _shoot(out: Path, data: Path, thread_id: str, _every: bool) -> None:
    from _shots import each_theme

    from app.ui.settings.page import PageId

    async for window, suffix in each_theme(data, thread_id, True):
        await window.refresh_models()
        picker = window.header.picker
        picker.showPopup()
        popup = picker.view().window()
        await asyncio.sleep(0.4)
        popup.grab().save(str(out / f"models{suffix}.png"))
        picker.hidePopup()
        dialog = window.open_settings()
        await dialog.show_page(PageId.NETWORK)
        await asyncio.sleep(0.4)
        dialog.grab().save(str(out / f"network{suffix}.png"))
        dialog.close()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "packaging"))
    from _shots import run_shots

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources/screenshots"
    with tempfile.TemporaryDirectory() as tmp:
        if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
            # a popup is kept inside its screen, and the offscreen one is 800 x 600 pixels
            # (400 wide at 2x): one as large as a 4K display holds the whole list
            screen = Path(tmp) / "screen.json"
            screen.write_text(json.dumps({"screens": [SCREEN]}))
            os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"
        raise SystemExit(run_shots([], _seed, _shoot, out, True))
