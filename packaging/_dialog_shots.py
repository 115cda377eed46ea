"""Render the budget pause and the settings dialog offscreen, in light and dark.

Run by ``packaging/screenshots.py``: ``python packaging/_dialog_shots.py OUT_DIR [--all]``
(``--all`` also writes every settings page in both themes, for looking them over).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PAUSE_SCRIPT = [
    {
        "tool_calls": [{"name": "calculator", "args": {"expression": "17 * 23"}}],
        "usage": {"prompt_tokens": 412, "completion_tokens": 18},
    },
    {
        "tool_calls": [{"name": "calculator", "args": {"expression": "391 + 9"}}],
        "usage": {"prompt_tokens": 460, "completion_tokens": 18},
    },
    {
        "text": "17 × 23 = 391, and 391 + 9 = 400.",
        "usage": {"prompt_tokens": 500, "completion_tokens": 14},
    },
]

PAGES = [
    "modelsSettingsPage",
    "keysSettingsPage",
    "knowledgeSettingsPage",
    "rulesSettingsPage",
    "auditSettingsPage",
    "limitsSettingsPage",
    "appearanceSettingsPage",
    "networkSettingsPage",
    "dataSettingsPage",
]


async def _seed(data: Path, script: Path) -> str:
    from app.core.budget import BudgetLimits
    from app.services.workspace import Workspace
    from app.store import fingerprint_args
    from app.tools.builtin import current_time
    from app.tools.calculator import calculator

    spec = f"scripted:{script}"
    ws = await Workspace.open(data, tools=[calculator, current_time])
    await ws.settings.save(
        ws.settings.current.model_copy(
            update={
                "default_model": spec,
                "default_limits": BudgetLimits(max_model_calls=2, max_tool_calls=40),
            }
        )
    )
    for title in ("Trip to Oslo: packing list", "Fix the CSV import"):
        await ws.threads.create(title=title, model=spec)
    thread = await ws.threads.create(model=spec)
    await (await ws.runs.send(thread.id, "What is 17 × 23, plus 9?"))
    store = ws._store
    await store.allow_always("calculator")
    await store.allow_always("write_text_file", thread_id=thread.id)
    for tool, args, decision, scope in (
        ("write_text_file", {"path": "~/notes/oslo.txt"}, "requested", "once"),
        ("write_text_file", {"path": "~/notes/oslo.txt"}, "always", "thread"),
        ("http_request", {"url": "https://example.org"}, "requested", "once"),
        ("http_request", {"url": "https://example.org"}, "deny", "once"),
    ):
        await store.record_approval(
            thread_id=thread.id,
            tool=tool,
            args_fingerprint=fingerprint_args(args),
            decision=decision,
            scope=scope,
        )
    await ws.aclose()
    _backups(data / "parley.db")
    return thread.id


def _backups(database: Path) -> None:
    """A few backups of ``database`` as a week of use leaves them, and one damaged."""
    import datetime

    from app.store import SCHEMA_VERSION
    from app.store.backups import backup_database, backup_name, backups_folder

    folder = backups_folder(database)
    today = datetime.datetime.now().replace(hour=9, minute=14, second=0)
    for days, kind in ((0, "daily"), (1, "daily"), (2, "daily"), (3, "manual"), (9, "daily")):
        when = today - datetime.timedelta(days=days, minutes=days * 7)
        backup_database(database, folder / backup_name(database, SCHEMA_VERSION, kind, when))
    when = today - datetime.timedelta(days=30)
    old = folder / backup_name(database, SCHEMA_VERSION - 1, "migration", when)
    backup_database(database, old)
    damaged = today - datetime.timedelta(days=5)
    broken = folder / backup_name(database, SCHEMA_VERSION, "daily", damaged)
    broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8000)


async def _shoot(out: Path, data: Path, thread_id: str, every: bool) -> None:
    from _shots import each_theme

    from app.ui.settings.page import PageId

    async for window, suffix in each_theme(data, thread_id, every):
        window.grab().save(str(out / f"budget-pause{suffix}.png"))
        dialog = window.open_settings()
        for page in PAGES if every else ["modelsSettingsPage"]:
            shown = await dialog.show_page(PageId(page))
            if page == "modelsSettingsPage":
                shown._say(  # type: ignore[attr-defined]
                    "ollama",
                    "Could not connect to http://127.0.0.1:11434: nothing answered there. "
                    "Is Ollama running?",
                )
            await asyncio.sleep(0.2)
            name = "settings" if page == "modelsSettingsPage" else f"settings-{page}"
            dialog.grab().save(str(out / f"{name}{suffix}.png"))
        if not suffix:  # the light theme
            page = await dialog.show_page(PageId.DATA)
            page.table.selectRow(1)  # type: ignore[attr-defined]
            await asyncio.sleep(0.2)
            dialog.grab().save(str(out / "backups.png"))
        dialog.close()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from _shots import run_shots

    every = "--all" in sys.argv
    raise SystemExit(run_shots(PAUSE_SCRIPT, _seed, _shoot, Path(sys.argv[1]), every))
