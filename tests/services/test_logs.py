"""Log files: rotating, written through the app's own loggers, with no secret and no message
text in them, whatever the app hands its loggers."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.state import Message
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.secrets.known import forget_all
from app.services.logs import LOG_FILE, setup_logging, start_logging, stop_logging
from app.store import Store
from tests.file_modes import mode, usual_umask
from tests.services.memory_keyring import MemoryKeyring

SECRET = "sk-MARKER-SECRET-5f2c9a1e"
TEXT = "MARKERTEXT the tulips bloom at midnight"
ENV_SECRET = "env-MARKER-KEY-77aa01"


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "logs"
    setup_logging(folder, environ={"EXAMPLE_API_KEY": ENV_SECRET, "HOME": "/home/someone"})
    yield folder
    stop_logging()
    forget_all()


def _all_logs(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob(LOG_FILE + "*")))


async def test_the_app_logs_ids_never_secrets_or_message_text(
    log_dir: Path, tmp_path: Path
) -> None:
    resolver = KeyringSecretResolver(backend=MemoryKeyring())
    resolver.set("openai/api-key", SECRET)
    assert resolver.get("openai/api-key") == SECRET
    async with Store.open(tmp_path / "parley.db") as store:
        thread = await store.create_thread(TEXT)
        await store.delete_thread(thread.id)
    chat_log = logging.getLogger("app.services.workspace")
    reply = Message.text_message(TEXT, role="assistant")
    # Careless calls: the filter still keeps content and secrets out.
    chat_log.info("reply %s ready", reply)
    chat_log.info("history %s", [reply, reply])
    chat_log.warning("request with key %s to %s", SECRET, "openai")
    chat_log.warning("environment key %s", ENV_SECRET)
    try:
        raise ValueError(f"the model choked on {TEXT!r} with {SECRET}")
    except ValueError:
        chat_log.exception("turn failed in thread %s", thread.id)
    chatty = logging.getLogger("openai")
    chatty.setLevel(logging.DEBUG)  # as OPENAI_LOG=debug does
    try:
        chatty.debug("Request options: %s", {"messages": [TEXT]})
    finally:
        chatty.setLevel(logging.NOTSET)

    written = _all_logs(log_dir)
    assert "MARKER" not in written
    assert f"created thread {thread.id}" in written
    assert f"deleted thread {thread.id}" in written
    assert "stored secret openai/api-key in the keyring" in written
    assert f"reply <assistant message {reply.message_id} [text]> ready" in written
    assert "history <2 messages>" in written
    assert "request with key [secret] to openai" in written
    assert "environment key [secret]" in written
    assert "ValueError (text not logged)" in written
    assert "Request options" not in written


def test_the_log_file_rotates(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    setup_logging(folder, max_bytes=2_000, backup_count=2, environ={})
    try:
        log = logging.getLogger("app.store")
        for n in range(200):
            log.info("created thread %032x", n)
    finally:
        stop_logging()
    names = sorted(p.name for p in folder.iterdir())
    assert names == [LOG_FILE, f"{LOG_FILE}.1", f"{LOG_FILE}.2"]
    assert all(p.stat().st_size <= 2_000 for p in folder.iterdir())
    assert f"created thread {199:032x}" in (folder / LOG_FILE).read_text()


def test_logs_go_into_a_chosen_data_dir(tmp_path: Path) -> None:
    try:
        assert start_logging(tmp_path) is None
        logging.getLogger("app.services").warning("hello")
    finally:
        stop_logging()
    assert "WARNING app.services: hello" in (tmp_path / "logs" / LOG_FILE).read_text()


def test_an_unwritable_log_folder_is_one_sentence_and_no_logging(tmp_path: Path) -> None:
    (tmp_path / "logs").write_text("a file where the folder should be")
    problem = start_logging(tmp_path)
    assert problem is not None
    assert problem.startswith(f"Parley keeps no log files this time: it cannot write to {tmp_path}")
    assert (tmp_path / "logs").read_text() == "a file where the folder should be"


def test_the_log_folder_and_file_are_private(tmp_path: Path) -> None:
    with usual_umask():
        try:
            assert start_logging(tmp_path / "data") is None
            logging.getLogger("app.services").warning("hello")
        finally:
            stop_logging()
    logs = tmp_path / "data" / "logs"
    assert [mode(logs / LOG_FILE), mode(logs), mode(logs.parent)] == ["0o600", "0o700", "0o700"]
