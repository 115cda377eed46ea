"""Attaching what an MCP server offers: its resources and prompts are listed per server, a
chosen one becomes a chip, and the next message carries its text to the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from app.core.state import Message, TextBlock
from app.services.mcp_config import McpConfig
from app.ui.attachments.mcp_offers import McpOffersButton
from tests.tools.mcp.helpers import demo_config
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until
from tests.ui.tools.test_tools_menu import ask


def recording(seen: list[str]) -> Any:
    """A model that notes the text of each user message it is sent, and answers."""

    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        last = messages[-1]
        seen.append("\n".join(b.text for b in last.content if isinstance(b, TextBlock)))
        return {"text": "Read it."}

    return reply


def offers_button(window: QWidget) -> McpOffersButton:
    found = find(window, QPushButton, "mcpOffersButton")
    assert isinstance(found, McpOffersButton)
    return found


def chip_names(window: QWidget) -> list[str]:
    return [chip.name for chip in window.attachments.tray.chips]  # type: ignore[attr-defined]


async def test_a_chosen_resource_is_sent_with_the_next_message(tmp_path: Path) -> None:
    McpConfig.for_data_dir(tmp_path).add(demo_config())
    seen: list[str] = []
    window = await open_test_window(tmp_path, Models({"scripted:a": recording(seen)}))
    try:
        await window.workspace.tools.wait_started()
        button = offers_button(window)
        await button.fill()
        sections = [a.text() for a in button.menu_.actions() if a.isSeparator() and a.text()]
        assert sections == ["MCP: demo"]
        entries = button.offer_actions()
        assert entries["demo:resource:today"].text() == "Resource: today — Today's notes"
        assert not entries["demo:prompt:summarize"].isEnabled()  # it needs a topic
        entries["demo:resource:today"].trigger()
        await wait_until(lambda: chip_names(window) == ["today"], what="the chip")
        answer = await ask(window, "What is on my list?")
        assert answer.text() == "Read it."
        assert seen == ["What is on my list?\nBuy milk. Call Ada."]
        assert chip_names(window) == []
    finally:
        await close_test_window(window)


async def test_a_prompt_without_arguments_is_sent_as_its_text(tmp_path: Path) -> None:
    McpConfig.for_data_dir(tmp_path).add(demo_config())
    seen: list[str] = []
    window = await open_test_window(tmp_path, Models({"scripted:a": recording(seen)}))
    try:
        await window.workspace.tools.wait_started()
        button = offers_button(window)
        await button.fill()
        button.offer_actions()["demo:prompt:greeting"].trigger()
        await wait_until(lambda: chip_names(window) == ["greeting"], what="the chip")
        await ask(window, "Please")
        assert seen == ["Please\nSay hello to Ada."]
    finally:
        await close_test_window(window)


async def test_a_failed_read_says_so_in_one_sentence(tmp_path: Path) -> None:
    McpConfig.for_data_dir(tmp_path).add(demo_config())
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        await window.workspace.tools.wait_started()
        button = offers_button(window)
        await button.fill()
        today = button.offer_actions()["demo:resource:today"]
        await window.workspace.tools.manager.aclose()  # the server goes away
        today.trigger()
        notice = find(window, QLabel, "noticeText")
        await wait_until(lambda: "could not be read" in notice.text(), what="the notice")
        assert notice.text().startswith(
            "The resource today of the MCP server demo could not be read: "
        )
        assert chip_names(window) == []
    finally:
        await close_test_window(window)


async def test_without_servers_the_menu_says_none_is_running(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        button = offers_button(window)
        await button.fill()
        texts = [a.text() for a in button.menu_.actions()]
        assert texts == ["No MCP server is running."]
    finally:
        await close_test_window(window)
