"""A refused API key in the real window: the error's row offers "Set API key…"; the person
pastes the key into the masked question, it goes to the keyring (the notice bar says so) and
Retry then gets the answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QWidget,
)

from app.core.errors import ModelAuthError
from app.core.models import ScriptedChatModel
from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state import ErrorBlock, Message
from app.secrets.keyring_resolver import SERVICE
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring
from tests.ui.chat.links_harness import href_spot
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

KEY_NAME = "openai/api-key"
KEY = "sk-test-Zq8Lr2Vx9Kp4Tn7Wd3Hs"


class KeyedModel(ScriptedChatModel):
    """Refuses as a provider refuses a missing key until the keyring holds the right one,
    then answers from its script."""

    def __init__(self, keyring: MemoryKeyring, script: list[str]) -> None:
        super().__init__(script)
        self.keyring = keyring

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        if self.keyring.get_password(SERVICE, KEY_NAME) != KEY:
            raise ModelAuthError(
                "The server refused the API key (HTTP 401); check the key.", key_name=KEY_NAME
            )
        async for chunk in super().astream(messages, tools=tools, config=config):
            yield chunk


def key_question(window: MainWindow) -> QDialog | None:
    shown = [d for d in window.findChildren(QDialog) if d.isVisible()]
    return next((d for d in shown if d.windowTitle() == "API key"), None)


async def answer(window: MainWindow, typed: str) -> None:
    """Type ``typed`` into the key question and press OK."""
    dialog = await wait_until(lambda: key_question(window), what="the key question")
    edit = find(dialog, QLineEdit, "")
    assert edit.echoMode() == QLineEdit.EchoMode.Password  # the key is typed masked
    edit.setFocus()
    QTest.keyClicks(edit, typed)
    ok = find(dialog, QDialogButtonBox, "").button(QDialogButtonBox.StandardButton.Ok)
    QTest.mouseClick(ok, Qt.MouseButton.LeftButton)
    await wait_until(lambda: key_question(window) is None, what="the question to close")


async def test_set_api_key_keeps_the_key_in_the_keyring_and_retry_answers(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    models = Models({"scripted:a": []})
    models.built["scripted:a"] = KeyedModel(memory_keyring, ["Hello, with a key."])
    window = await open_test_window(tmp_path, models)
    try:
        composer = find(window, QPlainTextEdit, "composer")
        composer.setFocus()
        QTest.keyClicks(composer, "Hello?")
        QTest.keyClick(composer, Qt.Key.Key_Return)
        chat = find(window, QListView, "chatView")
        await wait_until(lambda: chat.vm.model.rowCount() == 2, what="the error's row")
        await wait_until(lambda: chat.vm.status() != "running", what="the run to end")
        [error] = chat.vm.model.message_at(1).content
        assert isinstance(error, ErrorBlock) and "refused the API key" in error.error
        html = chat.delegate._laid(chat.vm.model.index(1, 0), 600).doc.toHtml()
        assert "Set API key…" in html

        set_key = href_spot(chat, 1, f"remedy:set_key:{KEY_NAME}")  # "Set API key…" in the row
        QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=set_key)
        await answer(window, KEY)
        await wait_until(lambda: memory_keyring.items, what="the key stored")
        assert memory_keyring.items == {(SERVICE, KEY_NAME): KEY}
        notice = find(window, QWidget, "noticeText")
        await wait_until(
            lambda: notice.text() == "Key saved in the system keyring.", what="where it went"
        )
        assert KEY not in notice.text()

        spot = href_spot(chat, 1, "remedy:retry:")
        QTest.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        await wait_until(
            lambda: (
                [m.text() for m in chat.vm.model.messages()] == ["Hello?", "Hello, with a key."]
            ),
            what="the answer",
        )
    finally:
        await close_test_window(window)
