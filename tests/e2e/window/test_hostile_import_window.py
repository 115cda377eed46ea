"""Importing a hostile export from the window: the thread opens without what pointed outside
the export, on the default model, and the notice bar says what was left out and why."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtWidgets import QListView, QWidget

from app.core.quoting import quoted
from tests.ui.harness import Models, close_test_window, find, open_test_window


async def test_the_notice_says_what_an_import_left_out_and_why(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_bytes(b"parley-test-secret-4711")
    spec = "ollama:llava@http://203.0.113.9:11434"
    export = tmp_path / "photos.json"
    image = {"kind": "url", "url": secret.as_uri(), "filename": "beach.png"}
    state = {
        "context": [
            {
                "message_id": "u1",
                "role": "user",
                "content": [{"type": "text", "text": "look"}, {"type": "image", "media": image}],
            }
        ]
    }
    doc = {"format": "parley.thread", "version": 1, "thread": {"model": spec}, "state": state}
    export.write_text(json.dumps(doc))
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        thread_id = await window.import_thread(export)
        assert thread_id is not None
        model_note = (
            f"The thread's model '{spec}' was not kept: it talks to the server "
            "'http://203.0.113.9:11434', which is not set up in Parley. The thread uses the "
            "default model (scripted:a) until you pick another in the model picker."
        )
        image_note = (
            "An image ('beach.png') was left out of this thread on import: it points at a file "
            f"on this computer ({quoted(secret.as_uri())}); an import keeps only media it "
            "carries itself."
        )
        notice = find(window, QWidget, "noticeBar")
        assert notice.isVisible() and notice.level == "warning"
        assert find(window, QWidget, "noticeText").text() == (
            f"Imported photos.json. {model_note} {image_note}"
        )
        assert (await window.workspace.threads.get(thread_id)).model == "scripted:a"
        view = find(window, QListView, "chatView")
        [message] = view.vm.model.messages()
        assert message.text() == "look" and [b.type for b in message.content] == ["text"]
        assert message.metadata["notes"] == [image_note]
    finally:
        await close_test_window(window)
