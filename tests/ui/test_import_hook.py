"""PySide6's import hook, once the window's package is loaded, keeps no module's source in
``linecache`` and still tells the modules that use PySide6 from those that do not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

IMPORTS = """
import json, linecache, sys
sys.path.insert(0, sys.argv[1])
{setup}
import shibokensupport.feature as feature
before = set(linecache.cache)
import uses_qt, plain_module
import colorsys  # a standard module with source
print(json.dumps({{
    "cached": sorted(set(linecache.cache) - before),
    "uses_qt": feature.pyside_feature_dict.get("uses_qt"),
    "plain": feature.pyside_feature_dict.get("plain_module"),
    "stdlib": feature.pyside_feature_dict.get("colorsys"),
}}))
"""


def _imports(tmp_path: Path, setup: str) -> dict[str, object]:
    (tmp_path / "uses_qt.py").write_text("from PySide6.QtCore import QObject\n")
    (tmp_path / "plain_module.py").write_text("VALUE = 1\n")
    done = subprocess.run(
        [sys.executable, "-c", IMPORTS.format(setup=setup), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-800:]
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_modules_imported_after_the_window_package_leave_no_source_in_linecache(
    tmp_path: Path,
) -> None:
    seen = _imports(tmp_path, "import app.ui")
    assert seen["cached"] == []
    assert (seen["uses_qt"], seen["plain"], seen["stdlib"]) == (0, -1, -1)


def test_without_it_pyside6_caches_each_source_and_answers_the_same(tmp_path: Path) -> None:
    seen = _imports(tmp_path, "import PySide6.QtCore")
    cached = seen["cached"]
    assert isinstance(cached, list)
    assert any(name.endswith("uses_qt.py") for name in cached)
    assert (seen["uses_qt"], seen["plain"], seen["stdlib"]) == (0, -1, -1)
