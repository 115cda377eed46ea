"""Journeys with attachments: drag a screenshot and a PDF into the chat, ask about them, and
the model is sent the picture and the document's text; a text-only model says beforehand
that it will not see the picture."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit

from app.core.models import ScriptedChatModel
from app.core.models.protocol import ChatModel, ModelInfo
from app.core.state import DocumentBlock, ImageBlock
from tests.ui.attach_helpers import drop_on, make_files
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    type_text,
    wait_until,
)


class VisionModels(Models):
    """Scripted models that take images and documents, like a vision model does."""

    def __call__(self, spec: str) -> ChatModel:
        if spec not in self.built:
            info = ModelInfo(
                spec=spec,
                name="vision",
                provider="scripted",
                input_kinds=frozenset({"text", "image", "document"}),
            )
            self.built[spec] = ScriptedChatModel(self.scripts[spec], info=info)
        return self.built[spec]


async def test_drag_a_screenshot_and_a_pdf_in_and_ask_about_them(tmp_path: Path) -> None:
    files = make_files(tmp_path / "files")
    models = VisionModels({"scripted:a": ["Revenue rose 12 percent, as the chart shows."]})
    window = await open_test_window(tmp_path / "data", models)
    try:
        chat = find(window, QListView, "chatView")
        target = window.stack.currentWidget()
        target = chat.viewport() if target is chat else target
        assert drop_on(target, [files["png"], files["pdf"]])
        tray = window.attachments.tray
        await wait_until(lambda: len(tray.blocks()) == 2, what="both files to attach")
        assert not find(window, QLabel, "attachmentFit").isVisible()  # the model sees both
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "What happened to revenue?")
        press(composer, Qt.Key.Key_Return)
        await wait_until(lambda: chat.vm.model.rowCount() == 2, what="the reply")
        await wait_until(lambda: chat.vm.status() != "running", what="the turn to end")
        assert chat.vm.model.messages()[1].text() == (
            "Revenue rose 12 percent, as the chart shows."
        )
        [sent] = [m for m in models.built["scripted:a"].calls[-1] if m.role == "user"]
        assert sent.text() == "What happened to revenue?"
        image = next(b for b in sent.content if isinstance(b, ImageBlock))
        document = next(b for b in sent.content if isinstance(b, DocumentBlock))
        png = files["png"].read_bytes()
        assert image.media.sha256 == hashlib.sha256(png).hexdigest()
        assert await window.workspace.attachments.media(image.media) == png
        assert "Quarterly revenue rose 12 percent in Oslo." in (document.text or "")
        assert "Costs were flat." in (document.text or "")
        assert tray.chips == []
    finally:
        await close_test_window(window)


async def test_a_text_only_model_warns_before_the_picture_is_sent(tmp_path: Path) -> None:
    files = make_files(tmp_path / "files")
    models = Models({"scripted:a": ["I can read the report."]})
    window = await open_test_window(tmp_path / "data", models)
    try:
        chat = find(window, QListView, "chatView")
        target = window.stack.currentWidget()
        drop_on(chat.viewport() if target is chat else target, [files["png"], files["pdf"]])
        fit = find(window, QLabel, "attachmentFit")
        await wait_until(fit.isVisible, what="the warning")
        assert fit.text() == "screenshot.png will be left out: scripted cannot take images."
        assert chat.vm.model.rowCount() == 0  # said before anything was sent
        await wait_until(lambda: len(window.attachments.tray.blocks()) == 2, what="both files")
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "Summarise the report.")
        press(composer, Qt.Key.Key_Return)
        await wait_until(lambda: chat.vm.model.rowCount() == 2, what="the reply")
        note = "screenshot.png was left out: scripted cannot take images."
        page = await window.workspace.threads.read_messages(chat.vm.thread_id or "")
        [user] = [m for m in page.messages if m.role == "user"]
        assert user.metadata["notes"] == [note]
        shown = chat.delegate.document(chat.vm.model.index(0, 0)).toPlainText()
        assert shown.splitlines()[-1] == note  # the note stays visible on the message
    finally:
        await close_test_window(window)
