"""Names shared by the whole engine: the graph's virtual entry and exit nodes."""

from __future__ import annotations

from typing import Final

START: Final = "__start__"
"""The virtual node every run enters from."""

END: Final = "__end__"
"""The virtual node a run finishes at."""
