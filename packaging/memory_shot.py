"""Render the README's memory screenshots: a reply with its chip ("1 memory used") and the
memories it opens, an agent's proposed memory asked on the Keep card, and Settings > Memory,
offscreen on a data directory seeded with a scripted model.

Run: ``.venv/bin/python packaging/memory_shot.py OUT_DIR [--all]`` (``--all``: dark too).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

QUESTION = "Which market near the Croix-Rousse is open on Sunday morning?"

SCRIPT = [
    {
        "tool_calls": [
            {
                "name": "remember",
                "args": {
                    "text": "The user cooks for four on Sundays",
                    "why": "to scale recipes without asking each time",
                },
            }
        ],
        "usage": {"prompt_tokens": 180, "completion_tokens": 30},
    },
    {
        "text": "The **Croix-Rousse market**, on the boulevard, is open on Sunday mornings until "
        "about 1 pm: a short walk from where you live.",
        "usage": {"prompt_tokens": 230, "completion_tokens": 34},
    },
]


async def _seed(data: Path, script: Path) -> str:
    from app.services.agents import Agent
    from app.services.workspace import Workspace

    spec = f"scripted:{script}"
    ws = await Workspace.open(data)
    await ws.settings.save(ws.settings.current.model_copy(update={"default_model": spec}))
    moving = await ws.threads.create(title="Moving to Lyon", model=spec)
    await ws.memory.add("The user lives in Lyon, near the Croix-Rousse", source=(moving.id, None))
    await ws.memory.add("The user's doctor is Dr Roux", local_only=True)
    cook = await ws.agents.add(Agent(name="Cook", instructions="Suggest recipes."))
    await ws.memory.add("Vegetarian; no mushrooms", agent_id=cook.id, pinned=True)
    cooking = await ws.threads.create(title="Sunday lunch", model=spec)
    await ws.tools.set_enabled(cooking.id, ["remember"])
    await (await ws.runs.send(cooking.id, "I cook for the four of us every Sunday."))
    market = await ws.threads.create(title="Sunday market", model=spec)
    await (await ws.runs.send(market.id, QUESTION))
    await ws.aclose()
    return market.id


async def _shoot(out: Path, data: Path, thread_id: str, every: bool) -> None:
    from _shots import each_theme

    from app.ui.settings.page import PageId

    async for window, suffix in each_theme(data, thread_id, every):
        await asyncio.sleep(0.3)
        window.grab().save(str(out / f"memory-chip{suffix}.png"))
        reply = window.chat_vm.model.messages()[-1]
        opened = asyncio.ensure_future(window.memories_used.open(reply))
        await asyncio.sleep(0.4)
        if window.memories_used.dialog is not None:
            window.memories_used.dialog.grab().save(str(out / f"memory-used{suffix}.png"))
            window.memories_used.dialog.reject()
        await opened
        threads = await window.workspace.threads.list_all()
        lunch = next(t.thread for t in threads if t.thread.title == "Sunday lunch")
        await window.open_thread(lunch.id)
        await asyncio.sleep(0.6)
        window.grab().save(str(out / f"memory-keep{suffix}.png"))
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.MEMORY)
        await page.load()
        await asyncio.sleep(0.2)
        dialog.grab().save(str(out / f"memory-page{suffix}.png"))
        dialog.close()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "packaging"))
    from _shots import run_shots

    every = "--all" in sys.argv
    raise SystemExit(run_shots(SCRIPT, _seed, _shoot, Path(sys.argv[1]), every))
