"""Render the README's pictures of a message's versions: a question answered three times, the
second answer shown (``‹ 2/3 ›``), and an edited follow-up question (``‹ 2/2 ›``), through
``parley --screenshot`` on a data directory seeded with a scripted model; and the same thread's
Thread > Branches… tree (``branch-tree-light.png``, ``branch-tree-dark.png``).

Run: ``.venv/bin/python packaging/branches_shot.py [OUT_DIR]`` (default resources/screenshots).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from _shots import screenshot  # noqa: E402

SCRIPT = [
    {"text": "Start at the **Opera House** roof at sunrise, then walk the harbour to Aker Brygge."},
    {"text": "Take the ferry to **Bygdøy**: the Fram Museum and the folk museum fill a morning."},
    {"text": "Rent a city bike and ride the Akerselva river path from Grønland up to Nydalen."},
    {"text": "The **Munch** museum by the fjord: The Scream, and a café on the top floor."},
    {"text": "The **National Museum**: Norway's largest collection, from Munch to design."},
]


async def _seed(data_dir: Path, script: Path) -> str:
    from app.services.workspace import Workspace

    spec = f"scripted:{script}"
    ws = await Workspace.open(data_dir)
    ws.settings.use(ws.settings.current.model_copy(update={"default_model": spec}))
    thread = await ws.threads.create(title="A day in Oslo", model=spec)
    await (await ws.runs.send(thread.id, "What should I do on a morning in Oslo?"))
    await (await ws.runs.regenerate(thread.id))
    await (await ws.runs.regenerate(thread.id))
    answer = (await ws.threads.read_messages(thread.id)).messages[-1]
    await ws.threads.switch_branch(thread.id, str(answer.message_id), 2)
    await (await ws.runs.send(thread.id, "And if it rains?"))
    question = (await ws.threads.read_messages(thread.id)).messages[-2]
    await (await ws.runs.send(thread.id, "And if it rains all day?", edit=str(question.message_id)))
    await ws.aclose()
    return thread.id


async def _shoot_tree(out: Path, data: Path, thread_id: str) -> None:
    """The branch tree over the window, in each theme."""
    from _shots import each_theme

    from app.ui.branch_tree import BranchTreeDialog

    async for window, suffix in each_theme(data, thread_id, True):
        dialog = BranchTreeDialog(window, window.thread_service, thread_id)
        await dialog.load()
        dialog.show()
        await asyncio.sleep(0.3)
        dialog.grab().save(str(out / f"branch-tree{'-dark' if suffix else '-light'}.png"))
        dialog.close()
        dialog.deleteLater()


def _tree_in_process(out_dir: Path, data: Path, thread_id: str) -> None:
    """Draw the tree in a child process (one QApplication per process, offscreen)."""
    import subprocess

    subprocess.run(
        [sys.executable, __file__, "--tree", str(out_dir), str(data), thread_id],
        check=True,
        cwd=ROOT,
    )


def _tree_main(out_dir: Path, data: Path, thread_id: str) -> int:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication(["parley-screenshots"])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(_shoot_tree(out_dir, data, thread_id))
    return 0


def main(out_dir: Path) -> list[Path]:
    """Write ``branches-light.png``, ``branches-dark.png`` and the tree's two pictures into
    ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        thread_id = asyncio.run(_seed(data, script))
        for theme in ("light", "dark"):
            written.append(screenshot(data, out_dir / f"branches-{theme}.png", theme, thread_id))
        _tree_in_process(out_dir, data, thread_id)
        written += [out_dir / f"branch-tree-{theme}.png" for theme in ("light", "dark")]
    return written


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tree"]:
        raise SystemExit(_tree_main(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]))
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources/screenshots"):
        print(path)
