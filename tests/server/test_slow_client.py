"""A client that reads its stream a byte at a time cannot hold the model: once a piece of its
reply waits longer than the write deadline, its reply ends as if it had gone, and the next
client is answered."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from app.core.models.protocol import ModelInfo
from app.core.models.scripted import ScriptedChatModel
from app.core.state.message import Message
from tests.server.harness import OneModel, serving

LONG = "tide " * 1_600_000
"""An answer of 8 MB: more than the sockets' buffers hold, so a slow reader blocks the send."""


class Watched:
    """The scripted model, noting when a stream of it was closed."""

    def __init__(self) -> None:
        self.model = ScriptedChatModel(
            [{"text": LONG}, {"text": "High tide at noon."}], chunk_size=65_536
        )
        self.closed = threading.Event()

    @property
    def info(self) -> ModelInfo:
        return self.model.info

    async def agenerate(self, messages: Sequence[Message], **options: Any) -> Message:
        return await self.model.agenerate(messages, **options)

    async def astream(self, messages: Sequence[Message], **options: Any) -> AsyncIterator[Message]:
        try:
            async for chunk in self.model.astream(messages, **options):
                yield chunk
        finally:
            self.closed.set()


def _slow_reader(base_url: str, key: str, stop: threading.Event) -> None:
    """Ask for a streamed reply, then read it a byte at a time until ``stop``."""
    where = urlsplit(base_url)
    body = json.dumps(
        {"model": "parley", "stream": True, "messages": [{"role": "user", "content": "Tides?"}]}
    ).encode()
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((where.hostname or "127.0.0.1", where.port or 80))
        sock.sendall(
            f"POST {where.path}/chat/completions HTTP/1.1\r\nHost: {where.netloc}\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        sock.settimeout(0.5)
        while not stop.is_set():
            try:
                if not sock.recv(1):
                    return  # the server closed it
            except TimeoutError:
                pass
            time.sleep(0.2)


def test_a_client_reading_a_byte_at_a_time_cannot_hold_the_model(tmp_path: Path) -> None:
    watched = Watched()
    stop = threading.Event()
    with serving(tmp_path, models=OneModel(watched), write_deadline=1.0) as served:
        slow = threading.Thread(target=_slow_reader, args=(served.base_url, served.key, stop))
        slow.start()
        try:
            assert watched.closed.wait(60), "the slow client's reply never ended"
            answer = httpx.post(
                f"{served.base_url}/chat/completions",
                json={"model": "parley", "messages": [{"role": "user", "content": "When?"}]},
                headers={"Authorization": f"Bearer {served.key}"},
                timeout=60,
            )
        finally:
            stop.set()
            slow.join(10)
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["message"]["content"] == "High tide at noon."
