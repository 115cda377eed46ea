"""The icon, .desktop file and AppStream metainfo validate, and install/uninstall for one user."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from app.services.locations import APP_ID, APP_NAME, DISPLAY_NAME

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"
DESKTOP = RESOURCES / f"{APP_ID}.desktop"
METAINFO = RESOURCES / f"{APP_ID}.metainfo.xml"
SCRIPT = ROOT / "packaging" / "linux" / "desktop-integration.sh"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (Debian package {package}; `make test` installs it)")
    return path


def _desktop_entry() -> dict[str, str]:
    entries = {}
    for line in DESKTOP.read_text().splitlines()[1:]:
        key, _, value = line.partition("=")
        entries[key] = value
    return entries


def test_desktop_file_validates() -> None:
    tool = _tool("desktop-file-validate", "desktop-file-utils")
    result = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout


def test_desktop_file_launches_parley_with_its_icon() -> None:
    entry = _desktop_entry()
    assert entry["Exec"] == APP_NAME
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == DISPLAY_NAME
    assert "Chat" in entry["Categories"].split(";")
    assert {"AI", "LLM", "chat"} <= set(entry["Keywords"].split(";"))


def test_metainfo_validates() -> None:
    tool = _tool("appstreamcli", "appstream")
    result = subprocess.run(
        [tool, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_metainfo_names_the_launcher_and_release_and_no_web_address() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert root.find("content_rating") is not None
    assert [r.get("version") for r in root.iter("release")] == ["0.1.0"]
    # the project has no web home yet (pyproject names none): no url or screenshot link to a
    # host nobody vouches for; add them when there is one
    assert root.find("url") is None
    assert "http" not in METAINFO.read_text(encoding="utf-8")


def test_icon_pngs_have_the_size_their_folder_names() -> None:
    for size in SIZES:
        png = RESOURCES / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        head = png.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n", png
        assert struct.unpack(">II", head[16:24]) == (size, size), png
    svg = ET.parse(RESOURCES / "icons" / f"{APP_ID}.svg").getroot()
    assert svg.get("viewBox") == "0 0 256 256"


def _run(*args: str, data_home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, check=False
    )


def test_install_and_uninstall_for_the_current_user(tmp_path: Path) -> None:
    data_home = tmp_path / "share"
    (data_home / "applications").mkdir(parents=True)
    neighbour = data_home / "applications" / "other.desktop"
    neighbour.write_text("[Desktop Entry]\n")

    installed = _run("install", "--exec", "/opt/my apps/parley", data_home=data_home)
    assert installed.returncode == 0, installed.stderr
    desktop = data_home / "applications" / DESKTOP.name
    text = desktop.read_text()
    assert 'Exec="/opt/my apps/parley"\n' in text
    assert "TryExec=/opt/my apps/parley\n" in text
    assert (data_home / "metainfo" / METAINFO.name).read_bytes() == METAINFO.read_bytes()
    svg = data_home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    assert svg.read_bytes() == (RESOURCES / "icons" / f"{APP_ID}.svg").read_bytes()
    for size in SIZES:
        rel = Path("icons") / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert (data_home / rel).read_bytes() == (RESOURCES / rel).read_bytes()

    removed = _run("uninstall", data_home=data_home)
    assert removed.returncode == 0, removed.stderr
    assert "Removed 12 Parley desktop files" in removed.stdout
    left = [p for p in data_home.rglob("*") if p.is_file() and APP_ID in p.name]
    assert left == []
    assert neighbour.read_text() == "[Desktop Entry]\n"


def test_install_rejects_a_stray_argument(tmp_path: Path) -> None:
    result = _run("install", "--bogus", data_home=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("usage:")
    assert not any(tmp_path.iterdir())
