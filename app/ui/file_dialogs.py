"""The window's file and folder dialogs (Qt's own, the same on every desktop): each opens
where it was last used this session, in the folder that held what was chosen in it, and
otherwise in the home folder, never in the folder the program was started from."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from app.ui.dialogs import ask

__all__ = ["ask_folder", "chosen_paths", "file_dialog", "forget_folders", "start_folder"]

_last: dict[str, Path] = {}
"""The folder each dialog (by object name) was last used in."""


def start_folder(name: str) -> Path:
    """Where the dialog ``name`` opens: the folder it was last used in, while it exists, else
    the home folder."""
    last = _last.get(name)
    if last is not None and last.is_dir():
        return last
    return Path.home()


def file_dialog(parent: QWidget | None, title: str, name: str) -> QFileDialog:
    """Qt's own file dialog (object name ``name``), opening at :func:`start_folder`; ask it
    with :func:`chosen_paths`, which keeps where the choice was made."""
    dialog = QFileDialog(parent, title)
    dialog.setObjectName(name)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setDirectory(str(start_folder(name)))
    return dialog


async def chosen_paths(dialog: QFileDialog) -> list[str]:
    """Open ``dialog`` and wait: the paths chosen (none when the person cancels); the next
    dialog of its name opens in the folder that holds the first of them."""
    if not await ask(dialog):
        return []
    paths = dialog.selectedFiles()
    if paths:
        _last[dialog.objectName()] = Path(paths[0]).parent
    return paths


async def ask_folder(parent: QWidget, title: str, name: str) -> str | None:
    """Ask for one folder (a dialog of object name ``name``); ``None`` when the person
    cancels."""
    dialog = file_dialog(parent, title, name)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    paths = await chosen_paths(dialog)
    return str(paths[0]) if paths else None


def forget_folders() -> None:
    """Forget where the dialogs were used (each opens in the home folder again)."""
    _last.clear()
