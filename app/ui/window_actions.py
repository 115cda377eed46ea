"""The main window's action table: every menu entry, shortcut and line of the F1 list, in
menu order, each bound to what the window (any :class:`WindowCommands`) does for it."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QKeySequence

from app.ui.actions import Action, ActionId, MenuId
from app.ui.agents.part import WindowAgents
from app.ui.attachments.mcp_offers import McpOffersButton
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.composer import ComposerPanel
from app.ui.data_menu import DataMenu
from app.ui.dictation import Dictation
from app.ui.model_picking import ModelPicking
from app.ui.read_aloud import ReadAloud
from app.ui.settings.page import PageId
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
    dictation: Dictation
    read_aloud: ReadAloud

    async def new_thread(self) -> None: ...
    async def import_thread(self) -> str | None: ...
    async def export_current(self) -> None: ...
    def open_settings(self, page: PageId | None = None) -> object: ...
    def show_waiting(self) -> None: ...
    def close(self) -> bool: ...
    def copy_last_answer(self) -> None: ...
    def focus_search(self) -> None: ...
    def rename_in_place(self) -> None: ...
    async def edit_system_prompt(self) -> None: ...
    async def show_branches(self) -> None: ...
    def delete_current(self) -> None: ...
    def step_thread(self, step: int) -> None: ...
    def toggle_sidebar(self) -> None: ...
    async def show_shortcuts(self) -> None: ...


def window_actions(w: WindowCommands) -> list[Action]:
    """Every menu entry, shortcut and line of the F1 list, in menu order."""
    data = w.data_actions
    return [
        *_file_actions(w),
        Action(ActionId.EDIT_COPY_ANSWER, "Copy last &answer", MenuId.EDIT, "Ctrl+Shift+C",
               w.copy_last_answer, "Copy the last answer"),
        Action(ActionId.EDIT_REGENERATE, "&Regenerate answer", MenuId.EDIT, "Ctrl+R",
               lambda: spawn(w.chat_vm.regenerate()), "Regenerate the last answer"),
        Action(ActionId.EDIT_FOCUS_MESSAGE, "Focus &message box", MenuId.EDIT, "Ctrl+L",
               w.composer.edit.setFocus, "Focus the message box"),
        Action(ActionId.EDIT_SEARCH, "&Search threads", MenuId.EDIT, _KEYS.Find, w.focus_search,
               "Search threads", "Ctrl+F"),
        Action(ActionId.EDIT_DICTATE, "&Dictate", MenuId.EDIT, "Ctrl+Shift+D",
               w.dictation.key_pressed,
               "Dictate into the message box / stop and transcribe (or hold to talk)"),
        Action(ActionId.EDIT_READ_ALOUD, "Read last answer a&loud", MenuId.EDIT, "Ctrl+Shift+R",
               w.read_aloud.toggle_last, "Read the last answer aloud / stop reading"),
        Action(ActionId.KEYS_SEND, "", None, help="Send", keys_text="Enter"),
        Action(ActionId.KEYS_NEW_LINE, "", None, help="New line in the message",
               keys_text="Shift+Enter"),
        Action(ActionId.KEYS_COMPARE, "", None, help="Compare models: send to several at once",
               keys_text="Ctrl+Shift+Enter"),
        Action(ActionId.KEYS_ESCAPE, "", None, help="Stop the reply / leave edit mode",
               keys_text="Esc"),
        Action(ActionId.KEYS_EDIT_LAST, "", None, help="Edit your last message",
               keys_text="Up (empty message box)"),
        Action(ActionId.THREAD_RENAME, "&Rename", MenuId.THREAD, "F2", w.rename_in_place,
               "Rename the thread"),
        Action(ActionId.THREAD_SYSTEM_PROMPT, "System &prompt…", MenuId.THREAD,
               handler=lambda: spawn(w.edit_system_prompt())),
        Action(ActionId.THREAD_MODEL, "Choose &model", MenuId.THREAD, "Ctrl+M",
               w.models.open_picker, "Choose the model"),
        Action(ActionId.THREAD_INCOGNITO, "&Incognito (no memory)", MenuId.THREAD,
               checkable=True),
        Action(ActionId.THREAD_BRANCHES, "&Branches…", MenuId.THREAD,
               handler=lambda: spawn(w.show_branches())),
        Action(ActionId.THREAD_DELETE, "&Delete", MenuId.THREAD, handler=w.delete_current),
        Action(ActionId.KEYS_DELETE_THREAD, "", None, help="Delete the thread (with Undo)",
               keys_text="Delete (in the thread list)"),
        Action(ActionId.THREAD_PREVIOUS, "&Previous thread", MenuId.THREAD, "Ctrl+PgUp",
               lambda: w.step_thread(-1), "Previous / next thread",
               "Ctrl+Page Up / Page Down"),
        Action(ActionId.THREAD_NEXT, "&Next thread", MenuId.THREAD, "Ctrl+PgDown",
               lambda: w.step_thread(1)),
        Action(ActionId.KEYS_MESSAGE_MENU, "", None, help="Actions for the focused message",
               keys_text="Menu key (in the conversation)"),
        Action(ActionId.VIEW_SIDEBAR, "Show &sidebar", MenuId.VIEW, "Ctrl+B", w.toggle_sidebar,
               "Show or hide the sidebar"),
        Action(ActionId.VIEW_OFFLINE, "Work &offline", MenuId.VIEW, checkable=True),
        Action(ActionId.VIEW_NETWORK, "&Network connections…", MenuId.VIEW,
               handler=lambda: w.open_settings(PageId.NETWORK)),
        Action(ActionId.VIEW_SCHEDULES, "S&chedules…", MenuId.VIEW,
               handler=lambda: w.open_settings(PageId.SCHEDULES)),
        Action(ActionId.VIEW_WAITING, "&Waiting for you…", MenuId.VIEW,
               handler=w.show_waiting),
        Action(ActionId.HELP_SHORTCUTS, "&Keyboard shortcuts", MenuId.HELP, "F1",
               lambda: spawn(w.show_shortcuts()), "This list"),
        Action(ActionId.HELP_DIAGNOSTICS, "&Copy diagnostics", MenuId.HELP,
               handler=lambda: spawn(data.copy_diagnostics()), separator_before=True),
        Action(ActionId.HELP_DATA_FOLDER, "Open &data folder", MenuId.HELP,
               handler=data.open_data_folder),
        Action(ActionId.HELP_LOG_FOLDER, "Open &log folder", MenuId.HELP,
               handler=data.open_log_folder),
    ]  # fmt: skip


def _file_actions(w: WindowCommands) -> list[Action]:
    data = w.data_actions
    return [
        Action(ActionId.FILE_NEW_THREAD, "&New thread", MenuId.FILE, _KEYS.New,
               lambda: spawn(w.new_thread()), "New thread", "Ctrl+N"),
        Action(ActionId.FILE_IMPORT, "&Import thread…", MenuId.FILE, "Ctrl+I",
               lambda: spawn(w.import_thread()), "Import a thread"),
        Action(ActionId.FILE_ATTACH, "&Attach files…", MenuId.FILE, "Ctrl+O", w.attachments.pick,
               "Attach files (or drop them on the chat, or paste with Ctrl+V)"),
        Action(ActionId.FILE_ATTACH_MCP, "Attach from &MCP server…", MenuId.FILE, "Ctrl+Shift+O",
               lambda: spawn(w.mcp_offers.open_menu()),
               "Attach a resource or prompt from an MCP server"),
        Action(ActionId.FILE_EXPORT, "&Export thread…", MenuId.FILE, "Ctrl+E",
               lambda: spawn(w.export_current()), "Export the thread"),
        Action(ActionId.FILE_NEW_AGENT, "New a&gent…", MenuId.FILE,
               handler=lambda: spawn(w.agent_part.new_agent()), separator_before=True),
        Action(ActionId.FILE_IMPORT_AGENT, "Im&port agent…", MenuId.FILE,
               handler=lambda: spawn(w.agent_part.import_agent())),
        Action(ActionId.FILE_EXPORT_AGENT, "E&xport agent…", MenuId.FILE,
               handler=lambda: spawn(w.agent_part.export_chosen())),
        Action(ActionId.FILE_SETTINGS, "&Settings…", MenuId.FILE, "Ctrl+,",
               lambda: w.open_settings(), "Settings", separator_before=True),
        Action(ActionId.FILE_EXPORT_ALL, "Export &all threads…", MenuId.FILE,
               handler=lambda: spawn(data.export_all()), separator_before=True),
        Action(ActionId.FILE_DELETE_ALL, "&Delete all data…", MenuId.FILE,
               handler=lambda: spawn(data.delete_all())),
        Action(ActionId.FILE_CLOSE, "&Close window", MenuId.FILE, _KEYS.Close, w.close,
               "Close the window", "Ctrl+W", separator_before=True),
        Action(ActionId.FILE_QUIT, "&Quit", MenuId.FILE, _KEYS.Quit, w.close, "Quit", "Ctrl+Q"),
    ]  # fmt: skip
