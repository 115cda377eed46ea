"""Attaching what an MCP server offers: its resources and prompts are listed per server, a
chosen one becomes a chip, and the next message carries its text to the model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QWidget

from app.core.state import Message, TextBlock
from app.services.mcp.config import McpConfig
from app.ui.attachments.mcp_offers import McpOffersButton
from app.ui.attachments.prompt_form import PromptForm
from app.ui.window import MainWindow
from tests.tools.mcp.helpers import demo_config
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    shortcut,
    type_text,
    wait_until,
)
from tests.ui.tools.test_tools_menu import ask


def recording(seen: list[str]) -> Any:
    """A model that notes the text of each user message it is sent, and answers."""

    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        last = messages[-1]
        seen.append("\n".join(b.text for b in last.content if isinstance(b, TextBlock)))
        return {"text": "Read it."}

    return reply


@asynccontextmanager
async def demo_window(tmp_path: Path, seen: list[str]) -> AsyncIterator[MainWindow]:
    """The window with the demo MCP server running and a model that records what it reads."""
    McpConfig.for_data_dir(tmp_path).add(demo_config())
    window = await open_test_window(tmp_path, Models({"scripted:a": recording(seen)}))
    try:
        await window.workspace.mcp.wait_started()
        yield window
    finally:
        await close_test_window(window)


def offers_button(window: QWidget) -> McpOffersButton:
    found = find(window, QPushButton, "mcpOffersButton")
    assert isinstance(found, McpOffersButton)
    return found


async def open_form(button: McpOffersButton) -> PromptForm:
    """The prompt's argument form, once it is on screen."""
    await wait_until(lambda: button.form is not None, what="the form")
    assert button.form is not None and button.form.isVisible()
    return button.form


def chip_names(window: QWidget) -> list[str]:
    return [chip.name for chip in window.attachments.tray.chips]  # type: ignore[attr-defined]


async def test_a_chosen_resource_is_sent_with_the_next_message(tmp_path: Path) -> None:
    seen: list[str] = []
    async with demo_window(tmp_path, seen) as window:
        button = offers_button(window)
        await button.fill()
        sections = [a.text() for a in button.menu_.actions() if a.isSeparator() and a.text()]
        assert sections == ["MCP: demo"]
        entries = button.offer_actions()
        assert entries["demo:resource:today"].text() == "Resource: today — Today's notes"
        assert entries["demo:prompt:summarize"].text() == (
            "Prompt: summarize… — Ask for a summary of a topic."
        )  # the dots: it asks for its topic first
        entries["demo:resource:today"].trigger()
        await wait_until(lambda: chip_names(window) == ["today"], what="the chip")
        [chip] = window.attachments.tray.chips
        assert (chip.icon.text(), chip.detail.text()) == ("TXT", "19 characters")
        answer = await ask(window, "What is on my list?")
        assert answer.text() == "Read it."
        assert seen == ["What is on my list?\nBuy milk. Call Ada."]
        assert chip_names(window) == []


async def test_a_prompt_without_arguments_is_sent_as_its_text(tmp_path: Path) -> None:
    seen: list[str] = []
    async with demo_window(tmp_path, seen) as window:
        button = offers_button(window)
        await button.fill()
        button.offer_actions()["demo:prompt:greeting"].trigger()
        await wait_until(lambda: chip_names(window) == ["greeting"], what="the chip")
        await ask(window, "Please")
        assert seen == ["Please\nSay hello to Ada."]


async def test_a_prompt_with_arguments_asks_for_them_from_the_keyboard(tmp_path: Path) -> None:
    seen: list[str] = []
    async with demo_window(tmp_path, seen) as window:
        button = offers_button(window)
        shortcut(window, "Ctrl+Shift+O")
        await wait_until(lambda: button.menu_.isVisible(), what="the menu to open")
        summarize = button.offer_actions()["demo:prompt:summarize"]
        while button.menu_.activeAction() is not summarize:
            press(button.menu_, Qt.Key.Key_Down)
        press(button.menu_, Qt.Key.Key_Return)
        form = await open_form(button)
        topic = find(form, QLineEdit, "promptArgument:topic")
        assert topic.accessibleName() == "topic" and topic.placeholderText() == "required"
        add = find(form, QPushButton, "promptArgumentsAdd")
        assert not add.isEnabled()  # the topic is required
        type_text(topic, "   ")
        assert not add.isEnabled()  # blanks are not a topic
        topic.clear()
        type_text(topic, "green tea")
        assert add.isEnabled()
        press(topic, Qt.Key.Key_Return)
        await wait_until(lambda: chip_names(window) == ["summarize (green tea)"], what="the chip")
        assert button.form is None
        await ask(window, "Go on")
        assert seen == ["Go on\nSummarize green tea in one sentence."]


async def test_escape_on_the_form_adds_nothing(tmp_path: Path) -> None:
    seen: list[str] = []
    async with demo_window(tmp_path, seen) as window:
        button = offers_button(window)
        await button.fill()
        button.offer_actions()["demo:prompt:summarize"].trigger()
        form = await open_form(button)
        type_text(find(form, QLineEdit, "promptArgument:topic"), "tea")
        press(form, Qt.Key.Key_Escape)
        await wait_until(lambda: button.form is None, what="the form to close")
        assert chip_names(window) == []
        assert "summarize" not in find(window, QLabel, "noticeText").text()


async def test_a_failed_read_says_so_in_one_sentence(tmp_path: Path) -> None:
    seen: list[str] = []
    async with demo_window(tmp_path, seen) as window:
        button = offers_button(window)
        await button.fill()
        today = button.offer_actions()["demo:resource:today"]
        await window.workspace.mcp.manager.aclose()  # the server goes away
        today.trigger()
        notice = find(window, QLabel, "noticeText")
        await wait_until(lambda: "could not be read" in notice.text(), what="the notice")
        assert notice.text().startswith(
            "The resource today of the MCP server demo could not be read: "
        )
        assert chip_names(window) == []


async def test_without_servers_the_menu_says_none_is_running(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        button = offers_button(window)
        await button.fill()
        texts = [a.text() for a in button.menu_.actions()]
        assert texts == ["No MCP server is running."]
    finally:
        await close_test_window(window)
