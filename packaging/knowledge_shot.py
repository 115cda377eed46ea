"""Render the README's knowledge screenshot: an answer from a folder of documents, with its
numbered sources under it, through ``parley --screenshot`` on a data directory seeded with a
knowledge folder and a scripted model.

Run: ``.venv/bin/python packaging/knowledge_shot.py [OUT_DIR]`` (default
resources/screenshots); ``packaging/screenshots.py`` runs it too.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from _shots import screenshot  # noqa: E402

QUESTION = "How long is the warranty on the kettle, and what does it not cover?"

ANSWER = (
    "The kettle is covered for **two years** from the date of purchase [2]. The warranty does "
    "not cover limescale damage, a cracked base from a fall, or use with anything but water "
    "[1]. Descaling it once a month keeps the element working and the warranty valid [2]."
)

FILES = {
    "kettle-manual.md": "# Warranty\n\nYour kettle is covered for two years from the date of "
    "purchase. Keep the receipt. Descale it once a month with citric acid: a kettle that is "
    "descaled keeps its element and its warranty.\n\n# Cleaning\n\nWipe the outside with a "
    "damp cloth. Never put the base in water.\n",
    "terms.md": "# What the warranty does not cover\n\nDamage from limescale, from a fall "
    "(such as a cracked base), or from boiling anything but water is not covered. Repairs by "
    "anyone but an approved service centre end the warranty.\n",
    "recipes.txt": "Tea: bring the water to 80 degrees for green tea, to a boil for black.\n",
}

SCRIPT = [{"text": ANSWER, "usage": {"prompt_tokens": 412, "completion_tokens": 61}}]


async def _seed(data_dir: Path, script: Path, folder: Path) -> str:
    from app.services.workspace import Workspace

    spec = f"scripted:{script}"
    ws = await Workspace.open(data_dir)
    ws.settings.use(ws.settings.current.model_copy(update={"default_model": spec}))
    await ws.knowledge.add_folder(folder)
    await ws.knowledge.wait_idle()
    thread = await ws.threads.create(title="Kettle warranty", model=spec)
    await (await ws.runs.send(thread.id, QUESTION))
    await ws.aclose()
    return thread.id


def main(out_dir: Path) -> list[Path]:
    """Write ``knowledge-light.png`` and ``knowledge-dark.png`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOME"] = tmp  # the folder reads as ~/Documents/kettle, as on a desktop
        folder = Path(tmp) / "Documents" / "kettle"
        folder.mkdir(parents=True)
        for name, text in FILES.items():
            (folder / name).write_text(text)
        data = Path(tmp) / "data"
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        thread_id = asyncio.run(_seed(data, script, folder))
        return [
            screenshot(data, out_dir / f"knowledge-{theme}.png", theme, thread_id)
            for theme in ("light", "dark")
        ]


if __name__ == "__main__":
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources/screenshots"):
        print(path)
