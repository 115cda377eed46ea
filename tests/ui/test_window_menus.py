"""The window's menus, their shortcuts and the F1 list, as a user reads them: the same
commands with the same keys in all three, since they come from one table."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QTableWidget, QWidget

from tests.ui.harness import Models, close_test_window, open_test_window, shortcut, wait_until


def standard(key: QKeySequence.StandardKey, otherwise: str = "") -> str:
    """The first keys this platform binds to ``key`` (what the menu shows; asked once the
    application exists), or ``otherwise`` where it binds none."""
    bindings = QKeySequence.keyBindings(key)
    return bindings[0].toString() if bindings else otherwise


def menus() -> dict[str, list[tuple[str, str]]]:
    """The menus as the user reads them: each entry's text and keys."""
    return {
        "&File": [
            ("&New thread", standard(QKeySequence.StandardKey.New)),
            ("&Import thread…", "Ctrl+I"),
            ("&Attach files…", "Ctrl+O"),
            ("Attach from &MCP server…", "Ctrl+Shift+O"),
            ("&Export thread…", "Ctrl+E"),
            ("---", ""),
            ("New a&gent…", ""),
            ("Im&port agent…", ""),
            ("E&xport agent…", ""),
            ("---", ""),
            ("&Settings…", "Ctrl+,"),
            ("---", ""),
            ("Export &all threads…", ""),
            ("&Delete all data…", ""),
            ("---", ""),
            ("&Close window", standard(QKeySequence.StandardKey.Close)),
            ("&Quit", standard(QKeySequence.StandardKey.Quit, "Ctrl+Q")),
        ],
        "&Edit": [
            ("Copy last &answer", "Ctrl+Shift+C"),
            ("&Regenerate answer", "Ctrl+R"),
            ("Focus &message box", "Ctrl+L"),
            ("&Search threads", standard(QKeySequence.StandardKey.Find)),
            ("&Dictate", "Ctrl+Shift+D"),
            ("Read last answer a&loud", "Ctrl+Shift+R"),
        ],
        "&Thread": [
            ("&Rename", "F2"),
            ("System &prompt…", ""),
            ("Choose &model", "Ctrl+M"),
            ("&Incognito (no memory)", ""),
            ("&Branches…", ""),
            ("&Delete", ""),
            ("&Previous thread", "Ctrl+PgUp"),
            ("&Next thread", "Ctrl+PgDown"),
        ],
        "&View": [
            ("Show &sidebar", "Ctrl+B"),
            ("Work &offline", ""),
            ("&Network connections…", ""),
            ("S&chedules…", ""),
            ("&Waiting for you…", ""),
        ],
        "&Help": [
            ("&Keyboard shortcuts", "F1"),
            ("---", ""),
            ("&Copy diagnostics", ""),
            ("Open &data folder", ""),
            ("Open &log folder", ""),
        ],
    }


F1_LIST = [
    ("Ctrl+N", "New thread"),
    ("Ctrl+I", "Import a thread"),
    ("Ctrl+O", "Attach files (or drop them on the chat, or paste with Ctrl+V)"),
    ("Ctrl+Shift+O", "Attach a resource or prompt from an MCP server"),
    ("Ctrl+E", "Export the thread"),
    ("Ctrl+,", "Settings"),
    ("Ctrl+W", "Close the window"),
    ("Ctrl+Q", "Quit"),
    ("Ctrl+Shift+C", "Copy the last answer"),
    ("Ctrl+R", "Regenerate the last answer"),
    ("Ctrl+L", "Focus the message box"),
    ("Ctrl+F", "Search threads"),
    ("Ctrl+Shift+D", "Dictate into the message box / stop and transcribe (or hold to talk)"),
    ("Ctrl+Shift+R", "Read the last answer aloud / stop reading"),
    ("Enter", "Send"),
    ("Shift+Enter", "New line in the message"),
    ("Ctrl+Shift+Enter", "Compare models: send to several at once"),
    ("Esc", "Stop the reply / leave edit mode"),
    ("Up (empty message box)", "Edit your last message"),
    ("F2", "Rename the thread"),
    ("Ctrl+M", "Choose the model"),
    ("Delete (in the thread list)", "Delete the thread (with Undo)"),
    ("Ctrl+Page Up / Page Down", "Previous / next thread"),
    ("Menu key (in the conversation)", "Actions for the focused message"),
    ("Ctrl+B", "Show or hide the sidebar"),
    ("F1", "This list"),
]


def shortcuts_dialog(window: QWidget) -> QDialog | None:
    for dialog in window.findChildren(QDialog, "shortcutsDialog"):
        if dialog.isVisible():
            return dialog
    return None


async def test_the_menus_their_keys_and_the_f1_list_agree(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        shown: dict[str, list[tuple[str, str]]] = {}
        for top in window.menuBar().actions():
            menu = top.menu()
            assert menu is not None
            shown[top.text()] = [
                ("---", "") if a.isSeparator() else (a.text(), a.shortcut().toString())
                for a in menu.actions()
            ]
        assert shown == menus()

        shortcut(window, "F1")
        dialog = await wait_until(lambda: shortcuts_dialog(window), what="the shortcut list")
        table = dialog.findChild(QTableWidget)
        assert table is not None
        rows = [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]
        assert rows == F1_LIST
        dialog.reject()
        await wait_until(lambda: shortcuts_dialog(window) is None, what="the list closing")
    finally:
        await close_test_window(window)
