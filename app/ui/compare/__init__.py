"""Compare…: one question to two to four models at once, their answers side by side."""

from app.ui.compare.part import WindowCompare
from app.ui.compare.picker import CompareModelsDialog
from app.ui.compare.view import CompareView

__all__ = ["CompareModelsDialog", "CompareView", "WindowCompare"]
