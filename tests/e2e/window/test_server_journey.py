"""Settings > Server in the real window: the server turned on serves the window's workspace
at the address the page shows; a key is made there, shown once with Copy, and a client of
the official ``openai`` SDK (in a thread, as another program would be) asks an agent to
write a file: the window's approval dialog asks, titled with the agent and the key, Approve
writes it and the client gets the agent's answer. Nobody answering within the request's time
denies the call with a sentence the client reads. Removing the key refuses its next request;
turning the server off closes it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QDialog, QLabel, QLineEdit, QPushButton, QTableWidget

import app.server.agents
from app.server.in_window import serve_in_window
from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring, installed
from tests.ui.approval_harness import approval_dialog
from tests.ui.harness import Models, find, type_text, wait_until

WRITTEN = "Done: the tide table is written."


@pytest.fixture
def keyring_here() -> Iterator[MemoryKeyring]:
    """An in-memory keyring for the keys the page makes."""
    with installed(MemoryKeyring()) as backend:
        assert isinstance(backend, MemoryKeyring)
        yield backend


def _script(target: Path) -> list[dict[str, Any]]:
    call = {"name": "write_file", "args": {"path": str(target), "content": "tide table"}}
    return [{"text": "", "tool_calls": [call]}, {"text": WRITTEN}]


async def _window(data: Path, notes: Path, script: list[dict[str, Any]]) -> MainWindow:
    """A window whose default model answers with ``script``, with the agent Writer (which may
    write files, in ``notes``), that can run the server."""
    workspace = await Workspace.open(
        data, resolve_model=Models({"scripted:a": script}), secret_resolver=lambda ref: "unused"
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    await workspace.tools.grant_folder(notes)
    await workspace.agents.add(Agent(name="Writer", tools=("write_file",)))
    window = MainWindow(workspace, serve=serve_in_window)
    window.show()
    await window.start(preload=False)
    return window


async def _serve_with_a_key(window: MainWindow) -> tuple[Any, str, str]:
    """Turn the server on (a free port) and make the key ci-bot on the page: the page, the
    address shown and the key shown once."""
    dialog = window.open_settings(PageId.SERVER)
    page = dialog.page(PageId.SERVER)
    await wait_until(page.isVisible, what="the server page")
    assert find(page, QLineEdit, "serverHost").text() == "127.0.0.1"  # loopback by default
    page.port.setValue(0)  # a free port
    find(page, QCheckBox, "serverSwitch").click()
    shown = find(page, QLabel, "serverAddress")
    await wait_until(lambda: shown.text().startswith("Serving at "), what="the server")
    address = shown.text().removeprefix("Serving at ")
    assert address.startswith("http://127.0.0.1:") and address.endswith("/v1")

    find(page, QPushButton, "serverAddKeyButton").click()
    asked = await wait_until(lambda: _open(page, "serverNewKeyDialog"), what="the key's name")
    type_text(find(asked, QLineEdit, "serverKeyName"), "ci-bot")
    asked.accept()
    made = await wait_until(lambda: _open(page, "serverKeyDialog"), what="the key shown once")
    key = find(made, QLineEdit, "serverKeyValue").text()
    assert key.startswith("pk-")
    find(made, QPushButton, "serverKeyCopyButton").click()
    assert QGuiApplication.clipboard().text() == key
    made.accept()
    table = find(page, QTableWidget, "serverKeys")
    await wait_until(lambda: table.rowCount() == 1, what="the key listed")
    assert table.item(0, 0).text() == "ci-bot" and table.item(0, 1).text() == "none"
    dialog.close()
    return page, address, key


def _open(page: Any, name: str) -> QDialog | None:
    """The dialog ``name`` open over ``page`` now (one shown before stays, hidden)."""
    return next((d for d in page.findChildren(QDialog, name) if d.isVisible()), None)


def _ask_writer(address: str, key: str) -> str:
    """What another program gets asking Writer through the API (blocking)."""
    with openai.OpenAI(base_url=address, api_key=key, max_retries=0, timeout=60) as client:
        reply = client.chat.completions.create(
            model="agent:Writer",
            messages=[{"role": "user", "content": "Write the tide table to notes."}],
        )
    return reply.choices[0].message.content or ""


async def test_an_agent_asked_through_the_api_is_approved_in_the_window(
    tmp_path: Path, keyring_here: MemoryKeyring
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "tides.txt"
    window = await _window(tmp_path / "data", notes, _script(target))
    try:
        page, address, key = await _serve_with_a_key(window)
        loop = asyncio.get_running_loop()
        answer = loop.run_in_executor(None, _ask_writer, address, key)
        dialog = await approval_dialog(window)
        assert dialog.windowTitle() == (
            "Writer, asked through the API by key ci-bot, wants to write_file"
        )
        assert not target.exists()  # nothing runs until the person decides
        find(dialog, QPushButton, "approveButton").click()
        assert await answer == WRITTEN
        assert target.read_text(encoding="utf-8") == "tide table"

        # the key removed on the page: its next request is refused
        table = find(page, QTableWidget, "serverKeys")
        table.selectRow(0)
        assert await page.remove_key()
        with pytest.raises(openai.AuthenticationError):
            await loop.run_in_executor(None, _ask_writer, address, key)
        await page.set_serving(False)
        assert find(page, QLabel, "serverAddress").text() == "Off."
        with pytest.raises(openai.APIConnectionError):
            await loop.run_in_executor(None, _ask_writer, address, key)
    finally:
        await close_window(window)


async def test_nobody_answering_in_time_denies_the_call_with_a_sentence(
    tmp_path: Path, keyring_here: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app.server.agents, "APPROVAL_WAIT", 1.5)
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "tides.txt"
    script = [*_script(target)[:1], {"text": "I could not write it."}]
    window = await _window(tmp_path / "data", notes, script)
    try:
        _page, address, key = await _serve_with_a_key(window)
        answer = asyncio.get_running_loop().run_in_executor(None, _ask_writer, address, key)
        dialog = await approval_dialog(window)
        text = await answer
        assert "Parley denied write_file: it needs the owner's approval and nobody answered" in (
            text
        )
        assert "nobody answered at the window within 1.5 seconds" in text
        assert not dialog.isVisible()  # the question went away with the request's time
        assert not target.exists()
    finally:
        await close_window(window)
