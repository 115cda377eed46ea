"""PySide6's per-import question ("does this module use PySide?") is answered without reading
the module's source."""

from __future__ import annotations

import linecache
import sys
from pathlib import Path

import pytest


def test_a_module_imported_after_qt_is_classified_without_reading_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.ui  # noqa: F401  (the window's package changes the hook)

    (tmp_path / "plain_scan_probe.py").write_text('"""Mentions PySide6 only here."""\nVALUE = 1\n')
    (tmp_path / "qt_scan_probe.py").write_text("from PySide6.QtCore import QObject\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    linecache.clearcache()
    try:
        __import__("plain_scan_probe")
        __import__("qt_scan_probe")
        feature = sys.modules["shibokensupport.feature"]
        assert feature.pyside_feature_dict["plain_scan_probe"] == -1
        assert feature.pyside_feature_dict["qt_scan_probe"] == 0
        assert not [name for name in linecache.cache if "scan_probe" in name]
    finally:
        sys.modules.pop("plain_scan_probe", None)
        sys.modules.pop("qt_scan_probe", None)
