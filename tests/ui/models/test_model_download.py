"""The model picker lists catalogue models with their size; choosing one downloads it from a
local server that serves files as the hub does, with progress, and makes it the thread's model;
Cancel stops it and keeps the bytes for the next try."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton

from app.services.models.catalogue import ModelLibrary
from app.ui.window import MainWindow
from tests.services.hub_server import HostedFile, HubServer
from tests.services.models.test_catalogue import DATA, ENTRY, SHA, hub
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

__all__ = ["hub"]  # the local hub server fixture


async def window_on(tmp_path: Path, hub: HubServer, deadline: float | None = None) -> MainWindow:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    window.workspace.downloads.library = ModelLibrary(
        tmp_path, hub_url=hub.url, catalogue=(ENTRY,), deadline=deadline
    )
    await window.refresh_models()
    return window


def picker_rows(window: MainWindow) -> list[tuple[str, object]]:
    picker = find(window, QComboBox, "modelPicker")
    model = picker.model()
    return [
        (model.index(r, 0).data(), model.index(r, 0).data(Qt.ItemDataRole.UserRole))
        for r in range(model.rowCount())
    ]


def choose(window: MainWindow, spec: object) -> None:
    picker = find(window, QComboBox, "modelPicker")
    row = [s for _, s in picker_rows(window)].index(spec)
    picker.setCurrentIndex(row)
    picker.activated.emit(row)


async def refusal_of(window: MainWindow, spec: str, needle: str) -> tuple[str | None, str]:
    """Choose ``spec`` in the picker and wait for a notice with ``needle`` in it; return the
    thread's model from before and the notice's text."""
    thread = window.chat_vm.thread_id
    assert thread is not None
    before = (await window.workspace.threads.get(thread)).model
    choose(window, spec)
    await wait_until(lambda: needle in window.notice.label.text(), what="the refusal")
    return before, window.notice.label.text()


async def assert_model_kept(window: MainWindow, before: str | None) -> None:
    """The thread and the picker still have the model from before."""
    thread = window.chat_vm.thread_id
    assert thread is not None
    assert (await window.workspace.threads.get(thread)).model == before
    assert find(window, QComboBox, "modelPicker").currentData() == before


async def test_a_catalogue_model_downloads_from_the_picker_and_becomes_the_threads_model(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    window = await window_on(tmp_path, hub)
    try:
        rows = picker_rows(window)
        assert ("Download (opens a connection)", None) in rows
        label = "   Tiny test model — 0 MB, needs 500 MB of memory, tool calls poor, Apache-2.0"
        assert (label, "download:tiny") in rows
        assert hub.requests == []  # listing opened no connection
        choose(window, "download:tiny")
        target = tmp_path / "models" / ENTRY.filename
        await wait_until(target.exists, what="the download")
        spec = f"gguf:{target}"
        thread = window.chat_vm.thread_id
        assert thread is not None
        await wait_until(
            lambda: "Downloaded Tiny test model" in window.notice.label.text(), what="done"
        )
        assert target.read_bytes() == DATA
        assert (await window.workspace.threads.get(thread)).model == spec
        picker = find(window, QComboBox, "modelPicker")
        assert picker.currentData() == spec
        assert ("   Tiny test model", spec) in picker_rows(window)
        assert not window.downloads.isVisible()
    finally:
        await close_test_window(window)


async def test_cancel_stops_the_download_and_keeps_its_bytes(
    tmp_path: Path, hub: HubServer
) -> None:
    # the server cuts every reply after 100 kB, so the download waits to retry: time to cancel
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA, drop_after=100_000, drops=100))
    window = await window_on(tmp_path, hub)
    try:
        choose(window, "download:tiny")
        bar = window.downloads
        await wait_until(bar.isVisible, what="the download bar")
        await wait_until(lambda: bar.bar.value() > 0, what="some progress")
        assert find(bar, QLabel, "downloadText").text().startswith("Downloading Tiny test model: ")
        find(bar, QPushButton, "cancelDownloadButton").click()
        await wait_until(lambda: "Stopped downloading" in window.notice.label.text(), what="stop")
        assert window.notice.label.text() == (
            "Stopped downloading Tiny test model; 0 MB are kept, choose it again to resume."
        )
        part = tmp_path / "models" / (ENTRY.filename + ".part")
        assert part.stat().st_size == 100_000
        assert not (tmp_path / "models" / ENTRY.filename).exists()
        assert not bar.isVisible()
    finally:
        await close_test_window(window)


async def test_a_damaged_download_says_so_keeps_nothing_and_leaves_the_threads_model(
    tmp_path: Path, hub: HubServer
) -> None:
    bad = b"GGUF" + b"not the model" * 1000
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(bad))
    window = await window_on(tmp_path, hub)
    try:
        before, said = await refusal_of(window, "download:tiny", "damaged")
        got = hashlib.sha256(bad).hexdigest()
        assert said == (
            f"The download of Tiny test model was damaged in transit (its SHA-256 is "
            f"{got[:12]}…, the published one {SHA[:12]}…), so nothing was kept; try again."
        )
        assert list((tmp_path / "models").iterdir()) == []
        await assert_model_kept(window, before)
        assert ("   Tiny test model", f"gguf:{tmp_path / 'models' / ENTRY.filename}") not in (
            picker_rows(window)
        )
        assert not window.downloads.isVisible()
    finally:
        await close_test_window(window)
