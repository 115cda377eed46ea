"""A desktop notification reaches a real freedesktop notification service on a real session
bus (a ``dbus-daemon`` of its own), typed as the specification asks; with no bus and no tray
it is not shown, and nothing fails."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.ui.desktop_notice import notify_desktop

SERVER = Path(__file__).with_name("notification_server.py")


@pytest.fixture
def session_bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if shutil.which("dbus-daemon") is None:
        pytest.skip("dbus-daemon is not installed here")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1",
         f"--address=unix:path={tmp_path / 'bus'}"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    got = tmp_path / "notifications.jsonl"
    server = subprocess.Popen(
        [sys.executable, str(SERVER), address, str(got)], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None and server.stdout.readline().strip() == "ready"
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    try:
        yield got
    finally:
        for process in (server, daemon):
            process.terminate()
            process.communicate(timeout=10)  # and its pipe closed


async def test_a_notification_reaches_the_desktops_notification_service(
    session_bus: Path,
) -> None:
    way = await notify_desktop(
        "A scheduled run waits for you", 'Parley asks to run write_note (path: "a.txt").'
    )
    assert way == "dbus"
    (told,) = [json.loads(line) for line in session_bus.read_text().splitlines()]
    assert told == {
        "app": "Parley",
        "summary": "A scheduled run waits for you",
        "body": 'Parley asks to run write_note (path: "a.txt").',
    }


async def test_without_a_bus_or_a_tray_nothing_is_shown_and_nothing_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    assert await notify_desktop("Title", "Body") == "none"
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    assert await notify_desktop("Title", "Body") == "none"
