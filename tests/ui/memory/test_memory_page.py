"""Settings > Memory in the real window: the list shows each memory's scope, source, times,
pinned and local only; search narrows it; edit, pin, delete and delete all of an agent's
change the database; the pause switch and an agent's "keep without asking" are kept in the
settings (and the turns follow them, see tests/services/memory/test_switches.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
)

from app.services.agents import Agent
from app.store import BUILTIN_AGENT_ID
from app.ui.settings.memory_page import COLUMNS
from app.ui.settings.page import PageId
from tests.knowledge.concepts import ConceptEmbedder
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    type_text,
    wait_until,
)


def _rows(table: QTableWidget) -> list[dict[str, str]]:
    return [
        {name: table.item(row, col).text() for col, name in enumerate(COLUMNS)}
        for row in range(table.rowCount())
    ]


async def _page(window: Any) -> Any:
    dialog = window.open_settings(PageId.MEMORY)
    page = dialog.page(PageId.MEMORY)
    await wait_until(page.isVisible, what="the memory page")
    await page.load()
    return page


async def test_the_page_lists_searches_and_changes_memories(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    ws = window.workspace
    try:
        cook = await ws.agents.add(Agent(name="Cook"))
        thread = await ws.threads.create()
        await ws.threads.rename(thread.id, "Moving house")
        about = await ws.memory.add("I live in Lyon", source=(thread.id, None))
        await ws.memory.add("Likes bitter chocolate", agent_id=cook.id, local_only=True)
        await ws.memory.add("Cooks for four on Sundays", agent_id=cook.id, pinned=True)
        page = await _page(window)
        table = find(page, QTableWidget, "memoryList")
        rows = {r["Memory"]: r for r in _rows(table)}
        assert rows["I live in Lyon"]["Scope"] == "about me"
        assert rows["I live in Lyon"]["Source"] == "thread “Moving house”"
        assert rows["I live in Lyon"]["Last used"] == "never"
        assert rows["Likes bitter chocolate"]["Scope"] == "Cook"
        assert rows["Likes bitter chocolate"]["Source"] == "added by you"
        assert rows["Likes bitter chocolate"]["Local only"] == "yes"
        assert rows["Cooks for four on Sundays"]["Pinned"] == "yes"

        type_text(find(page, QLineEdit, "memorySearch"), "chocol")
        await wait_until(lambda: table.rowCount() == 1, what="the search")
        assert _rows(table)[0]["Memory"] == "Likes bitter chocolate"
        find(page, QLineEdit, "memorySearch").clear()
        await wait_until(lambda: table.rowCount() == 3, what="every memory again")

        # its source opens the thread it was kept in
        table.selectRow([r["Memory"] for r in _rows(table)].index("I live in Lyon"))
        find(page, QPushButton, "memorySourceButton").click()
        await wait_until(lambda: window.chat_vm.thread_id == thread.id, what="the source")
        page = await _page(window)
        # pin, then edit, then delete "I live in Lyon"
        table.selectRow([r["Memory"] for r in _rows(table)].index("I live in Lyon"))
        find(page, QPushButton, "memoryPinButton").click()
        await wait_until(lambda: ws.memory is not None and _pinned(page, "I live in Lyon"))
        assert (await ws.memory.get(about.id)).pinned
        table.selectRow([r["Memory"] for r in _rows(table)].index("I live in Lyon"))
        find(page, QPushButton, "memoryChangeButton").click()
        editor = await wait_until(
            lambda: (d := page.findChild(QInputDialog, "memoryEditDialog")) and d.isVisible() and d,
            what="the edit dialog",
        )
        editor.setTextValue("I live in Lyon, near the Croix-Rousse")
        editor.accept()
        await wait_until(
            lambda: "I live in Lyon, near the Croix-Rousse" in [r["Memory"] for r in _rows(table)],
            what="the edited text",
        )
        assert (await ws.memory.get(about.id)).text == "I live in Lyon, near the Croix-Rousse"
        table.selectRow(
            [r["Memory"] for r in _rows(table)].index("I live in Lyon, near the Croix-Rousse")
        )
        find(page, QPushButton, "memoryDeleteButton").click()
        await wait_until(lambda: table.rowCount() == 2, what="the memory to go")
        assert [m.text for m in await ws.memory.list(every=True)] == [
            "Cooks for four on Sundays",
            "Likes bitter chocolate",
        ]

        # delete all of Cook's, after the question
        choice = find(page, QComboBox, "memoryAgentChoice")
        choice.setCurrentIndex(choice.findData(cook.id))
        find(page, QPushButton, "memoryForgetAgentButton").click()
        box = await wait_until(
            lambda: (
                (b := page.findChild(QMessageBox, "forgetAgentMemoriesDialog"))
                and b.isVisible()
                and b
            ),
            what="the question",
        )
        find(box, QPushButton, "confirmForgetAgentButton").click()
        await wait_until(lambda: not table.isVisible(), what="the list to empty")
        assert await ws.memory.list(every=True) == []
    finally:
        await close_test_window(window)


def _pinned(page: Any, text: str) -> bool:
    rows = {r["Memory"]: r for r in _rows(find(page, QTableWidget, "memoryList"))}
    return text in rows and rows[text]["Pinned"] == "yes"


async def test_the_switches_are_kept_in_the_settings(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    ws = window.workspace
    try:
        page = await _page(window)
        choice = find(page, QComboBox, "memoryAgentChoice")
        assert choice.currentData() == BUILTIN_AGENT_ID
        assert not find(page, QPushButton, "memoryForgetAgentButton").isEnabled()
        find(page, QCheckBox, "memoryKeepUnaskedSwitch").click()
        await wait_until(
            lambda: ws.settings.current.memory_keep_unasked == [BUILTIN_AGENT_ID],
            what="keep without asking",
        )
        find(page, QCheckBox, "memoryAgentPausedSwitch").click()
        await wait_until(
            lambda: ws.settings.current.memory_paused_agents == [BUILTIN_AGENT_ID],
            what="the agent's pause",
        )
        assert "Memory is paused for Parley" in find(page, QLabel, "memoryMessage").text()
        find(page, QCheckBox, "memoryPausedSwitch").click()
        await wait_until(lambda: ws.settings.current.memory_paused, what="the pause")
        assert (tmp_path / "settings.json").read_text().count('"memory_paused"') == 1
    finally:
        await close_test_window(window)


async def test_the_search_box_finds_a_memory_by_meaning(tmp_path: Path) -> None:
    """With an embedding model chosen, typing a word the memory does not hold finds it by
    meaning (and nothing unrelated); the box says how it searches."""
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    ws = window.workspace
    try:
        ws.knowledge.use_embedder(ConceptEmbedder(), "gguf:/models/concepts.gguf", resync=False)
        await ws.memory.add("Our cat purred on the warm windowsill")
        await ws.memory.add("Quarterly revenue rose twelve percent")
        page = await _page(window)
        table = find(page, QTableWidget, "memoryList")
        box = find(page, QLineEdit, "memorySearch")
        assert box.placeholderText() == "Search memories by words and meaning"
        type_text(box, "kitten")
        await wait_until(lambda: table.rowCount() == 1, what="the search by meaning")
        assert _rows(table)[0]["Memory"] == "Our cat purred on the warm windowsill"
    finally:
        await close_test_window(window)
