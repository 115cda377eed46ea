"""Render the tools screenshots: the composer's tools menu over the window (with the published
``mcp-server-time`` configured), and the Tools and MCP servers settings pages, light and dark.

Run: ``.venv/bin/python packaging/tools_screenshots.py [OUT_DIR]`` (default
resources/screenshots). ``tools.png`` and ``mcp.png`` are the README's; the others are for
looking at.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def _render(out_dir: Path, theme: str, data: Path) -> None:
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

    from app.services.mcp.config import McpConfig
    from app.tools.mcp import ServerConfig
    from app.ui.app import close_window, open_window
    from app.ui.settings.mcp_page import McpPage
    from app.ui.settings.tools_page import ToolsPage
    from app.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    bin_dir = str(Path(sys.executable).parent)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    folder = data / "projects"
    folder.mkdir(parents=True, exist_ok=True)
    config = McpConfig.for_data_dir(data)
    if not config.path.exists():
        config.add(
            ServerConfig(
                name="time",
                # as a user writes it: the installed command, found on PATH
                command="mcp-server-time",
                args=["--local-timezone", "Europe/Oslo"],
            )
        )
    window = await open_window(str(data), preload=False)
    assert window is not None
    try:
        window.resize(1100, 720)
        await window.workspace.mcp.wait_started()
        if not window.workspace.settings.current.granted_folders:
            await window.workspace.tools.grant_folder(folder)
            thread = window.chat_vm.thread_id or ""
            await window.workspace.tools.set_enabled(
                thread, ["read_file", "list_directory", "time__get_current_time"]
            )
        window.tools_button.refresh()
        await asyncio.sleep(0.3)
        button = window.tools_button
        button.rebuild()
        menu = button.menu_
        menu.adjustSize()
        shot = window.grab()
        origin = button.mapTo(window, QPoint(0, 0))
        at = QPoint(origin.x(), origin.y() - menu.sizeHint().height() - 4)
        painter = QPainter(shot)
        painter.drawPixmap(at, menu.grab())
        painter.end()
        name = "tools.png" if theme == "light" else f"tools-{theme}.png"
        shot.save(str(out_dir / name))
        ws = window.workspace
        pages = (
            (ToolsPage(ws.settings, ws.tools), "settings-tools"),
            (McpPage(ws.mcp, ws.events), "settings-mcp"),
        )
        for page, stem in pages:
            frame = QWidget()  # the room the settings dialog gives a page
            layout = QVBoxLayout(frame)
            layout.setContentsMargins(16, 16, 16, 16)
            layout.addWidget(page)
            frame.resize(792, 552)
            frame.show()
            await page.load()
            await asyncio.sleep(0.2)
            frame.grab().save(str(out_dir / f"{stem}-{theme}.png"))
            if theme == "light" and stem == "settings-mcp":
                frame.grab().save(str(out_dir / "mcp.png"))
            frame.close()
            frame.deleteLater()
        from app.ui.settings._mcp_dialog import ServerDialog

        dialog = ServerDialog(window.workspace.mcp, None, window)
        dialog.name.setText("docs")
        dialog.kind.setCurrentIndex(1)
        dialog.url.setText("https://example.com/mcp")
        dialog.headers.setPlainText("Authorization: Bearer {keyring:mcp/docs/Authorization}")
        dialog.show()
        await asyncio.sleep(0.2)
        dialog.grab().save(str(out_dir / f"mcp-dialog-{theme}.png"))
        dialog.close()
    finally:
        await close_window(window)


def main(out_dir: Path) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    out_dir.mkdir(parents=True, exist_ok=True)
    app = QApplication(["parley"])
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory() as tmp:
        for theme in ("light", "dark"):
            loop = qasync.QEventLoop(app)
            asyncio.set_event_loop(loop)
            with loop:
                loop.run_until_complete(_render(out_dir, theme, Path(tmp) / "data"))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources/screenshots"
    raise SystemExit(main(target))
