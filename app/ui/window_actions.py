"""The main window's action table: every menu entry, shortcut and line of the F1 list, in
menu order, each bound to what the window (any :class:`WindowCommands`) does for it."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QKeySequence

from app.ui.actions import Action
from app.ui.agents.part import WindowAgents
from app.ui.attachments.mcp_offers import McpOffersButton
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.composer import ComposerPanel
from app.ui.data_menu import DataMenu
from app.ui.model_picking import ModelPicking
from app.ui.tasks import spawn
from app.ui.window_attachments import WindowAttachments

__all__ = ["WindowCommands", "window_actions"]

_KEYS = QKeySequence.StandardKey


class WindowCommands(Protocol):
    """What the actions call: the window's parts and commands."""

    chat_vm: ChatViewModel
    composer: ComposerPanel
    attachments: WindowAttachments
    mcp_offers: McpOffersButton
    data_actions: DataMenu
    models: ModelPicking
    agent_part: WindowAgents

    async def new_thread(self) -> None: ...
    async def import_thread(self) -> str | None: ...
    async def export_current(self) -> None: ...
    def open_settings(self, page: str | None = None) -> object: ...
    def close(self) -> bool: ...
    def copy_last_answer(self) -> None: ...
    def focus_search(self) -> None: ...
    def rename_in_place(self) -> None: ...
    async def edit_system_prompt(self) -> None: ...
    def delete_current(self) -> None: ...
    def step_thread(self, step: int) -> None: ...
    def toggle_sidebar(self) -> None: ...
    async def show_shortcuts(self) -> None: ...


def window_actions(w: WindowCommands) -> list[Action]:
    """Every menu entry, shortcut and line of the F1 list, in menu order."""
    data = w.data_actions
    return [
        *_file_actions(w),
        Action("edit.copyAnswer", "Copy last &answer", "&Edit", "Ctrl+Shift+C",
               w.copy_last_answer, "Copy the last answer"),
        Action("edit.regenerate", "&Regenerate answer", "&Edit", "Ctrl+R",
               lambda: spawn(w.chat_vm.regenerate()), "Regenerate the last answer"),
        Action("edit.focusMessage", "Focus &message box", "&Edit", "Ctrl+L",
               w.composer.edit.setFocus, "Focus the message box"),
        Action("edit.search", "&Search threads", "&Edit", _KEYS.Find, w.focus_search,
               "Search threads", "Ctrl+F"),
        Action("keys.send", "", None, help="Send", keys_text="Enter"),
        Action("keys.newLine", "", None, help="New line in the message",
               keys_text="Shift+Enter"),
        Action("keys.escape", "", None, help="Stop the reply / leave edit mode",
               keys_text="Esc"),
        Action("keys.editLast", "", None, help="Edit your last message",
               keys_text="Up (empty message box)"),
        Action("thread.rename", "&Rename", "&Thread", "F2", w.rename_in_place,
               "Rename the thread"),
        Action("thread.systemPrompt", "System &prompt…", "&Thread",
               handler=lambda: spawn(w.edit_system_prompt())),
        Action("thread.model", "Choose &model", "&Thread", "Ctrl+M", w.models.open_picker,
               "Choose the model"),
        Action("thread.delete", "&Delete", "&Thread", handler=w.delete_current),
        Action("keys.deleteThread", "", None, help="Delete the thread (with Undo)",
               keys_text="Delete (in the thread list)"),
        Action("thread.previous", "&Previous thread", "&Thread", "Ctrl+PgUp",
               lambda: w.step_thread(-1), "Previous / next thread",
               "Ctrl+Page Up / Page Down"),
        Action("thread.next", "&Next thread", "&Thread", "Ctrl+PgDown",
               lambda: w.step_thread(1)),
        Action("keys.messageMenu", "", None, help="Actions for the focused message",
               keys_text="Menu key (in the conversation)"),
        Action("view.sidebar", "Show &sidebar", "&View", "Ctrl+B", w.toggle_sidebar,
               "Show or hide the sidebar"),
        Action("view.offline", "Work &offline", "&View", checkable=True),
        Action("view.network", "&Network connections…", "&View",
               handler=lambda: w.open_settings("networkSettingsPage")),
        Action("help.shortcuts", "&Keyboard shortcuts", "&Help", "F1",
               lambda: spawn(w.show_shortcuts()), "This list"),
        Action("help.diagnostics", "&Copy diagnostics", "&Help",
               handler=lambda: spawn(data.copy_diagnostics()), separator_before=True),
        Action("help.dataFolder", "Open &data folder", "&Help",
               handler=data.open_data_folder),
        Action("help.logFolder", "Open &log folder", "&Help", handler=data.open_log_folder),
    ]  # fmt: skip


def _file_actions(w: WindowCommands) -> list[Action]:
    data = w.data_actions
    return [
        Action("file.newThread", "&New thread", "&File", _KEYS.New,
               lambda: spawn(w.new_thread()), "New thread", "Ctrl+N"),
        Action("file.import", "&Import thread…", "&File", "Ctrl+I",
               lambda: spawn(w.import_thread()), "Import a thread"),
        Action("file.attach", "&Attach files…", "&File", "Ctrl+O", w.attachments.pick,
               "Attach files (or drop them on the chat, or paste with Ctrl+V)"),
        Action("file.attachMcp", "Attach from &MCP server…", "&File", "Ctrl+Shift+O",
               lambda: spawn(w.mcp_offers.open_menu()),
               "Attach a resource or prompt from an MCP server"),
        Action("file.export", "&Export thread…", "&File", "Ctrl+E",
               lambda: spawn(w.export_current()), "Export the thread"),
        Action("file.newAgent", "New a&gent…", "&File",
               handler=lambda: spawn(w.agent_part.new_agent()), separator_before=True),
        Action("file.importAgent", "Im&port agent…", "&File",
               handler=lambda: spawn(w.agent_part.import_agent())),
        Action("file.exportAgent", "E&xport agent…", "&File",
               handler=lambda: spawn(w.agent_part.export_chosen())),
        Action("file.settings", "&Settings…", "&File", "Ctrl+,",
               lambda: w.open_settings(), "Settings", separator_before=True),
        Action("file.exportAll", "Export &all threads…", "&File",
               handler=lambda: spawn(data.export_all()), separator_before=True),
        Action("file.deleteAll", "&Delete all data…", "&File",
               handler=lambda: spawn(data.delete_all())),
        Action("file.close", "&Close window", "&File", _KEYS.Close, w.close,
               "Close the window", "Ctrl+W", separator_before=True),
        Action("file.quit", "&Quit", "&File", _KEYS.Quit, w.close, "Quit", "Ctrl+Q"),
    ]  # fmt: skip
