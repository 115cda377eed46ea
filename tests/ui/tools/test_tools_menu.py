"""The composer's tools menu: a thread switches tools on and off, the model is offered exactly
those, the choice survives reopening the window, and MCP servers' tools join the menu."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit, QPushButton, QWidget

from app.core.state import Message, ToolResultBlock
from app.services.mcp.config import McpConfig
from app.ui.tools import ToolsButton
from tests.tools.mcp.helpers import demo_config
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    type_text,
    wait_until,
)


def calling(tool: str, args: dict[str, Any]) -> Any:
    """A model that calls ``tool`` once, then answers with what the tool returned."""

    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        last = messages[-1]
        if last.role == "tool":
            said = " ".join(str(b.output) for b in last.content if isinstance(b, ToolResultBlock))
            return {"text": f"The tool said: {said}"}
        if last.role == "user" and tool:
            return {"text": "", "tool_calls": [{"name": tool, "args": args}]}
        return {"text": "No tool needed."}

    return reply


def button(window: QWidget) -> ToolsButton:
    found = find(window, QPushButton, "toolsButton")
    assert isinstance(found, ToolsButton)
    return found


async def switch(window: QWidget, name: str, on: bool = True) -> None:
    """Open the tools menu's entries and switch tool ``name`` as a click would."""
    tools = button(window)
    tools.rebuild()
    action = tools.actions_by_name()[name]
    assert action.isChecked() != on
    action.trigger()
    thread = window.chat_vm.thread_id  # type: ignore[attr-defined]
    await wait_until(lambda: (name in tools.tools.enabled(thread)) == on, what=f"{name} switched")


async def ask(window: QWidget, text: str) -> Message:
    composer = find(window, QPlainTextEdit, "composer")
    vm = find(window, QListView, "chatView").vm
    before = len(vm.model.messages())
    type_text(composer, text)
    press(composer, Qt.Key.Key_Return)

    def answered() -> bool:
        rows = vm.model.messages()
        return (
            len(rows) > before + 1
            and rows[-1].role == "assistant"
            and bool(rows[-1].text())
            and vm.status() != "running"
        )

    await wait_until(answered, what="the reply")
    return vm.model.messages()[-1]


async def test_a_thread_with_the_file_tools_on_reads_a_granted_file(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "plan.txt").write_text("Pack the blue tent and two lanterns.", encoding="utf-8")
    models = Models({"scripted:a": calling("read_file", {"path": str(folder / "plan.txt")})})
    window = await open_test_window(tmp_path / "data", models)
    try:
        await window.workspace.tools.grant_folder(folder)
        assert button(window).text() == "Tools"
        await switch(window, "read_file")
        assert button(window).text() == "Tools: 1 on"
        answer = await ask(window, "What is in my plan?")
        assert "Pack the blue tent and two lanterns." in answer.text()
        offered = [t.name for t in models.built["scripted:a"].tools_seen[0]]
        assert offered == ["read_file"]
    finally:
        await close_test_window(window)


async def test_a_tool_switched_off_is_not_offered_and_the_choice_survives_reopening(
    tmp_path: Path,
) -> None:
    models = Models({"scripted:a": calling("", {})})
    window = await open_test_window(tmp_path, models)
    thread = window.chat_vm.thread_id
    try:
        await switch(window, "calculator")
        await switch(window, "current_time")
        await switch(window, "calculator", on=False)
        await ask(window, "Hello")
        offered = [t.name for t in models.built["scripted:a"].tools_seen[-1]]
        assert offered == ["current_time"]
    finally:
        await close_test_window(window)

    window = await open_test_window(tmp_path, Models({"scripted:a": calling("", {})}))
    try:
        assert window.chat_vm.thread_id == thread
        tools = button(window)
        assert tools.text() == "Tools: 1 on"
        tools.rebuild()
        checked = [n for n, a in tools.actions_by_name().items() if a.isChecked()]
        assert checked == ["current_time"]
        assert "calculator" in tools.actions_by_name()  # still listed, just off
    finally:
        await close_test_window(window)


async def test_an_mcp_servers_tool_appears_in_the_menu_and_runs(tmp_path: Path) -> None:
    # the user allowed echo: a server's own read-only claim would not let it run unasked
    McpConfig.for_data_dir(tmp_path).add(demo_config(tools={"echo": "allowed"}))
    models = Models({"scripted:a": calling("demo__echo", {"text": "hello from the window"})})
    window = await open_test_window(tmp_path, models)
    try:
        await window.workspace.mcp.wait_started()
        tools = button(window)
        tools.rebuild()
        sections = [a.text() for a in tools.menu_.actions() if a.isSeparator() and a.text()]
        assert sections == ["Built-in", "MCP: demo"]
        echo = tools.actions_by_name()["demo__echo"]
        assert echo.text() == "echo — Say the text back"
        await switch(window, "demo__echo")
        answer = await ask(window, "Echo something")
        assert answer.text() == "The tool said: echo: hello from the window"
    finally:
        await close_test_window(window)


async def test_a_failing_server_says_so_calmly(tmp_path: Path) -> None:
    McpConfig.for_data_dir(tmp_path).add(demo_config("broken", "--exit-at-start", "no token"))
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        await window.workspace.mcp.wait_started()
        notice = find(window, QLabel, "noticeText")
        await wait_until(lambda: "MCP server broken" in notice.text(), what="the notice")
        assert notice.text().startswith(
            "The MCP server broken is not running, so its tools are not offered:"
        )
        assert "no token" in notice.text()
        assert window.notice.level == "warning"
        tools = button(window)
        tools.rebuild()
        notes = [a.text() for a in tools.menu_.actions() if not a.isEnabled()]
        assert any(t.startswith("Not running:") for t in notes)
    finally:
        await close_test_window(window)


async def test_the_menu_works_from_the_keyboard(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        tools = button(window)
        window.composer.attach_button.setFocus()
        press(window.composer.attach_button, Qt.Key.Key_Tab)  # as they sit: Attach, From MCP…
        offers = window.focusWidget()
        assert offers is not None and offers.objectName() == "mcpOffersButton"
        press(offers, Qt.Key.Key_Tab)
        assert window.focusWidget() is tools
        press(tools, Qt.Key.Key_Space)
        await wait_until(lambda: tools.menu_.isVisible(), what="the menu to open")
        assert tools.menu_.activeAction().objectName() == "tool:current_time"
        press(tools.menu_, Qt.Key.Key_Down)
        assert tools.menu_.activeAction().objectName() == "tool:calculator"
        press(tools.menu_, Qt.Key.Key_Return)
        thread = window.chat_vm.thread_id
        await wait_until(
            lambda: window.workspace.tools.enabled(thread) == ["calculator"], what="switched on"
        )
        assert tools.text() == "Tools: 1 on"
        assert not tools.menu_.isVisible()
    finally:
        await close_test_window(window)
