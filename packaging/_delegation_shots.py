"""Render delegation offscreen: a thread whose agent asked a delegate, its card unfolded, and
the approval dialog for a delegate's call offering a rule scoped to a folder.

Run by ``packaging/screenshots.py``: ``python packaging/_delegation_shots.py OUT_DIR``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

PARENT = [
    {
        "text": "Let me ask the researcher.",
        "tool_calls": [
            {
                "name": "ask_researcher",
                "args": {"task": "Find tomorrow's weather in Oslo."},
                "id": "d1",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 20},
    },
    {"text": "Tomorrow in Oslo it will be **4 °C with light rain**. Pack a jacket."},
]
RESEARCHER = [
    {
        "text": "Searching.",
        "tool_calls": [{"name": "search_web", "args": {"query": "Oslo weather"}, "id": "s1"}],
    },
    {"tool_calls": [{"name": "read_page", "args": {"url": "https://yr.no/oslo"}, "id": "r1"}]},
    {"text": "Tomorrow in Oslo: 4 °C and light rain, wind 5 m/s."},
]


async def _seed(data: Path) -> None:
    from app.core import HumanMessage, tool
    from app.core.models import ScriptedChatModel
    from app.services.delegation import AgentSpec, build_agent
    from app.store import Store

    @tool
    def search_web(query: str) -> str:
        """Search the web."""
        return f"3 results for {query}: the Oslo forecast says 4 °C and light rain"

    @tool
    def read_page(url: str) -> str:
        """Read a web page."""
        return "Tomorrow: 4 °C, light rain, wind 5 m/s."

    models = {"scripted:parley": PARENT, "scripted:researcher": RESEARCHER}
    tools = {"search_web": search_web, "read_page": read_page}
    agents = {
        "Parley": AgentSpec(name="Parley", delegates=("Researcher",)),
        "Researcher": AgentSpec(
            name="Researcher", model="scripted:researcher", tools=("search_web", "read_page")
        ),
    }
    async with Store.open(data / "parley.db") as store:
        await store.create_thread("Trip to Oslo", thread_id="oslo")
        graph = await build_agent(
            "Parley",
            agents,
            models=lambda spec: ScriptedChatModel(models[spec]),
            tools=lambda names: {n: tools[n] for n in names if n in tools},
            thread_model="scripted:parley",
            checkpointer=store.checkpointer,
        )
        await graph.ainvoke(
            {"messages": [HumanMessage("What's the weather in Oslo tomorrow?")]},
            {"thread_id": "oslo"},
        )


def _dialog(out: Path) -> None:
    from app.core.tools import ApprovalRequest, args_fingerprint
    from app.tools.files import file_tools
    from app.ui.approvals import ToolApprovalDialog

    args = {"path": str(Path.home() / "notes" / "oslo.txt"), "content": "Pack a jacket"}
    request = ApprovalRequest(
        call_id="w1",
        tool="write_file",
        description="Create a text file or replace a file's whole content (UTF-8).",
        permissions=["files:write"],
        args=args,
        fingerprint=args_fingerprint(args),
        thread_id="oslo",
        agent="Researcher",
        asked_by="Parley",
    )
    write_file = next(t for t in file_tools([Path.home() / "notes"]) if t.name == "write_file")
    dialog = ToolApprovalDialog(
        None, [request], thread_title="Trip to Oslo", tools={"write_file": write_file}
    )
    dialog.scope_argument.setChecked(True)
    dialog.show()
    dialog.grab().save(str(out / "approval-delegate.png"))
    dialog.done(2)


async def _shoot(out: Path, data: Path) -> None:
    from PySide6.QtWidgets import QApplication, QListView

    from app.ui.app import close_window, open_window
    from app.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, "light")

    window: Any = await open_window(str(data), thread_id="oslo", preload=False)
    window.resize(1180, 1020)
    await window.open_thread("oslo")
    await asyncio.sleep(0.3)
    view = window.findChild(QListView, "chatView")
    card = None
    for row in range(view.model().rowCount()):
        message = view.vm.model.message_at(row)
        if message is not None and message.agent is not None:
            card = f"{message.message_id}:delegated"
            break
    if card is not None:
        view.delegate.expanded.add(card)
        view.scheduleDelayedItemsLayout()
    await asyncio.sleep(0.3)
    view.scrollToTop()
    await asyncio.sleep(0.2)
    window.grab().save(str(out / "delegation.png"))
    _dialog(out)
    await close_window(window)


def main(out: Path) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(["parley-screenshots"])
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(_seed(data))
            loop.run_until_complete(_shoot(out, data))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(Path(sys.argv[1])))
