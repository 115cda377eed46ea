"""Render the README's schedules screenshots: Settings > Schedules with three schedules (one
paused), the run waiting for you in the Waiting for you list and the runs (one done, one
waiting for you), and the editor of a new schedule saying its next three runs and its limits,
offscreen on a data directory seeded with a scripted model.

Run: ``.venv/bin/python packaging/schedules_shot.py OUT_DIR [--all]`` (``--all``: dark too).
"""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = [
    {
        "text": "Three things changed overnight: the build is green again, two issues were "
        "closed, and the release notes need a line on the new schedules.",
        "usage": {"prompt_tokens": 412, "completion_tokens": 38},
    },
    {
        "tool_calls": [
            {
                "name": "post_notes",
                "args": {"title": "Today", "text": "Review the release notes."},
                "id": "c1",
            }
        ],
        "usage": {"prompt_tokens": 236, "completion_tokens": 41},
    },
]


async def _seed(data: Path, script: Path) -> str:
    from app.core.budget import BudgetLimits
    from app.core.tools import tool
    from app.services.workspace import Workspace

    @tool(requires_approval=True)
    def post_notes(title: str, text: str) -> str:
        """Post the day's notes to the team's board."""
        return f"posted {title}"

    spec = f"scripted:{script}"
    ws = await Workspace.open(data, tools=[post_notes])
    await ws.settings.save(ws.settings.current.model_copy(update={"default_model": spec}))
    notes = await ws.threads.create(title="Daily notes", model=spec)
    report = await ws.schedules.add(
        "Parley", "Morning report: what changed in the project overnight?", every="day 08:00"
    )
    tidy = await ws.schedules.add(
        "Parley",
        "Post today's notes from this thread to the board.",
        every="weekdays 18:30",
        thread=notes.id,
        limits=BudgetLimits(max_tool_calls=3),
    )
    backups = await ws.schedules.add(
        "Parley", "Check that last night's backup is whole.", every="2h"
    )
    await ws.schedules.pause(backups.id)
    runner = ws.schedule_runner(lambda: datetime.now().astimezone())
    assert await runner.start() is None
    shown = ""
    for record in (report, tidy):
        await ws.schedules.ask_run_now(record.id)
        await runner.look(only=record.id)
        (run,) = await runner.wait()
        shown = shown or run.thread_id or ""
    runner.stop()
    await ws.aclose()
    return shown  # the morning report's thread: the window opens on it


async def _shoot(out: Path, data: Path, thread_id: str, every: bool) -> None:
    from _shots import each_theme
    from PySide6.QtWidgets import QDialog, QLineEdit, QPlainTextEdit, QPushButton

    from app.ui.settings.page import PageId

    async for window, suffix in each_theme(data, thread_id, every):
        dialog = window.open_settings()
        dialog.resize(1040, 800)
        page = await dialog.show_page(PageId.SCHEDULES)
        await page.load()
        page.table.selectRow(1)
        page.waiting.list.setCurrentRow(0)
        await asyncio.sleep(0.3)
        dialog.grab().save(str(out / f"schedules{suffix}.png"))
        page.findChild(QPushButton, "newScheduleButton").click()
        await asyncio.sleep(0.3)
        editor = page.findChild(QDialog, "scheduleEditor")
        editor.findChild(QPlainTextEdit, "schedulePrompt").setPlainText(
            "Summarise the day's threads in five lines."
        )
        editor.findChild(QLineEdit, "scheduleWhen").setText("weekdays 18:30")
        await asyncio.sleep(0.3)
        editor.grab().save(str(out / f"schedule-editor{suffix}.png"))
        editor.reject()
        dialog.close()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "packaging"))
    from _shots import run_shots

    every = "--all" in sys.argv
    raise SystemExit(run_shots(SCRIPT, _seed, _shoot, Path(sys.argv[1]), every))
