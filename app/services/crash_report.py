"""The text of a crash report: where an unexpected exception happened, safe to share.

It has the versions, the exception's type and the frames with their code lines — no local
variables, no exception text (which can hold a message the user wrote), and every secret value
Parley has seen replaced by ``[secret]``.
"""

from __future__ import annotations

import platform
import traceback
from importlib import metadata

from app.services.logs import PrivacyFilter, traceback_without_text

__all__ = ["crash_report", "where_it_happened"]


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def where_it_happened(exc: BaseException) -> str:
    """ "ValueError in on_click" — the exception's type and the innermost function."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" in {frames[-1].name}" if frames else ""
    return f"{type(exc).__name__}{where}"


def crash_report(exc: BaseException, context: str = "") -> str:
    """The report for ``exc`` (``context``: where it was caught, e.g. "a Qt slot")."""
    head = [
        f"Parley {_version('parley')} on Python {platform.python_version()}, "
        f"PySide6 {_version('PySide6-Essentials')}, {platform.system()} {platform.release()}",
        f"Caught in: {context or 'the window'}",
        "",
    ]
    body = traceback_without_text(exc).replace("(text not logged)", "(its text is left out)")
    text = "\n".join(head) + body
    return PrivacyFilter().redact(text)
