"""The tools part of the window: the composer's tools menu (per thread)."""

from app.ui.tools.button import ToolsButton

__all__ = ["ToolsButton"]
