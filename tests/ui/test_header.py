"""The header's model picker on its own: choosing a model, a catalogue download, Add a model
file… or Manage models… asks for exactly that, each by its own signal."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.services.models.choices import ModelChoice
from app.ui.header import Header


def test_each_picker_entry_asks_for_what_it_says(qtbot: QtBot) -> None:
    header = Header()
    qtbot.addWidget(header)
    asked: list[tuple[str, ...]] = []
    header.modelChosen.connect(lambda spec: asked.append(("model", spec)))
    header.downloadRequested.connect(lambda name: asked.append(("download", name)))
    header.addFileRequested.connect(lambda: asked.append(("add a file",)))
    header.manageRequested.connect(lambda: asked.append(("manage",)))
    header.set_choices(
        [
            ModelChoice("local", "SmolLM2 135M (bundled)", "On this computer"),
            ModelChoice("download:tiny", "Tiny test model", "Download (opens a connection)"),
        ],
        "local",
    )
    picker = header.picker
    labels = [picker.itemText(row) for row in range(picker.count())]
    assert labels == [
        "On this computer",
        "   SmolLM2 135M (bundled)",
        "Download (opens a connection)",
        "   Tiny test model",
        "Add a model file (.gguf)…",
        "Manage models…",
    ]
    for row in (3, 4, 5, 1, 0):  # the group heading asks for nothing
        picker.activated.emit(row)
    assert asked == [("download", "tiny"), ("add a file",), ("manage",), ("model", "local")]
    assert picker.currentData() == "local"
