"""The tools part of the window: the composer's tools menu (per thread) and its wiring."""

from app.ui.tools.button import ToolsButton, install_tools

__all__ = ["ToolsButton", "install_tools"]
