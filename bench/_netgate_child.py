"""One side of the network gate's bench, in a process of its own (an audit hook cannot be
removed): ``python -m bench._netgate_child gate|bare`` prints JSON figures."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time

from app.core.netgate import install
from app.core.state import Message
from app.providers._retry import RetryPolicy
from app.providers.openai_compat import OpenAIChatModel
from tests.providers.replay_server import ReplayServer, Reply

CONNECTS = 2000
CHUNKS = 2000


def _connect_us(port: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(CONNECTS):
            socket.create_connection(("127.0.0.1", port)).close()
        best = min(best, (time.perf_counter() - start) / CONNECTS * 1e6)
    return best


def _chunk(i: int, finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": {"content": f"w{i} "}, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


async def _stream_ms(url: str) -> float:
    model = OpenAIChatModel(
        "m", base_url=f"{url}/v1", api_key="k", retry=RetryPolicy(max_retries=0), timeout=30
    )
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        async for _ in model.astream([Message.text_message("go")]):
            pass
        best = min(best, (time.perf_counter() - start) * 1e3)
    await model.aclose()
    return best


def main(mode: str) -> None:
    if mode == "gate":
        install()
    server = socket.create_server(("127.0.0.1", 0), backlog=512)
    port = server.getsockname()[1]
    import threading

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    connect = _connect_us(port)
    server.close()
    replay = ReplayServer()
    body = [_chunk(i) for i in range(CHUNKS - 1)] + [_chunk(CHUNKS, "stop"), b"data: [DONE]\n\n"]
    replay.add("/v1/chat/completions", Reply(chunks=body))
    replay.start()
    try:
        stream = asyncio.run(_stream_ms(replay.url))
    finally:
        replay.stop()
    print(json.dumps({"connect_us": connect, "stream_ms": stream}))


if __name__ == "__main__":
    main(sys.argv[1])
