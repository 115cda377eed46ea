"""``parley serve`` on the bundled model beside llama-cpp-python's own server on the same
model, in the same run: time to the first token and tokens per second of a streamed answer
(the same prompt, greedy, the same context), and how many short scripted answers
a second the server gives eight clients asking at once. Each server runs in a process of its
own with the settings it chooses: Parley the decode threads it measures at its first load
(part of the warm-up request here, as on a first launch), llama-cpp-python its defaults.
Both run at once and their requests take turns, so the machine's other work falls on both.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import llama_cpp

from app.providers._llama_load import model_params
from app.providers.bundled import bundled_model_path
from bench.table import Row

GROUP = "local server"
KEY = "pk-bench"
PROMPT = "Explain in one paragraph why the sea has tides."
ANSWER_TOKENS = 96
RUNS = 5
CLIENTS = 8
REQUESTS_EACH = 25


@contextmanager
def _parley(model: str, data_dir: Path) -> Iterator[str]:
    """``parley serve`` over ``model`` in a process of its own (:mod:`bench._server_child`),
    with the settings it chooses itself; its base URL."""
    command = [sys.executable, "-m", "bench._server_child", model, str(data_dir), KEY]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().strip() or 0)
        if not port:
            raise RuntimeError("parley serve did not start")
        _wait_up(f"http://127.0.0.1:{port}/v1/models")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(url: str, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, headers={"Authorization": f"Bearer {KEY}"}, timeout=2).is_success:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer in {seconds:.0f} s")


@contextmanager
def _peer(path: Path) -> Iterator[str]:
    """llama-cpp-python's server on the GGUF at ``path``, with its own thread settings (half
    the CPUs decode, all of them read the prompt); its base URL."""
    port = _free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--port", str(port),
        "--n_ctx", "4096",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_up(f"http://127.0.0.1:{port}/v1/models")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(30)


def _streamed(base: str, model: str, count: llama_cpp.Llama) -> tuple[float, float]:
    """Seconds to the first token, and tokens per second after it, of one streamed answer."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": ANSWER_TOKENS,
        "temperature": 0,
        "seed": 1,
        "stream": True,
    }
    headers = {"Authorization": f"Bearer {KEY}"}
    start = time.perf_counter()
    first = 0.0
    text = []
    with httpx.stream(
        "POST", f"{base}/chat/completions", json=body, headers=headers, timeout=300
    ) as reply:
        reply.raise_for_status()
        for line in reply.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            event = json.loads(line[6:])
            for choice in event.get("choices", []):
                piece = (choice.get("delta") or {}).get("content") or ""
                if piece:
                    first = first or time.perf_counter()
                    text.append(piece)
    end = time.perf_counter()
    # the same tokenizer counts both answers (chunks need not be one token each)
    tokens = len(count.tokenize("".join(text).encode(), add_bos=False))
    if not first or tokens < 2:
        raise RuntimeError(f"{base} streamed no answer")
    return first - start, (tokens - 1) / (end - first)


def _speeds(
    ours: str, theirs: str, count: llama_cpp.Llama
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Both servers' medians (first token, tokens per second), their requests taking turns
    so a burst of other work on the machine falls on both alike."""
    _streamed(ours, "parley", count)  # warm: the model loaded, its first prompt seen
    _streamed(theirs, "bundled", count)
    runs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for _ in range(RUNS):
        runs.append((_streamed(ours, "parley", count), _streamed(theirs, "bundled", count)))

    def median(side: int) -> tuple[float, float]:
        return (
            statistics.median(r[side][0] for r in runs),
            statistics.median(r[side][1] for r in runs),
        )

    return median(0), median(1)


def _many_clients(base: str) -> float:
    """Answers a second with :data:`CLIENTS` clients, each asking :data:`REQUESTS_EACH`
    times for a short scripted answer."""
    body = {"model": "parley", "messages": [{"role": "user", "content": "Hello"}]}
    headers = {"Authorization": f"Bearer {KEY}"}

    def client(_: int) -> int:
        done = 0
        with httpx.Client(timeout=60) as http:
            for _ in range(REQUESTS_EACH):
                while True:
                    reply = http.post(f"{base}/chat/completions", json=body, headers=headers)
                    if reply.status_code != 429:  # the queue was full: ask again, as told
                        break
                    time.sleep(float(reply.headers.get("retry-after", "1")) / 20)
                reply.raise_for_status()
                done += 1
        return done

    start = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        answered = sum(pool.map(client, range(CLIENTS)))
    return answered / (time.perf_counter() - start)


def run() -> list[Row]:
    """The server's figures beside llama-cpp-python's server's."""
    path = bundled_model_path()
    if path is None:
        raise RuntimeError("the bundled model is not installed (make run installs it)")
    with model_params():
        count = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    with tempfile.TemporaryDirectory() as tmp:
        with _parley("local", Path(tmp) / "data") as mine, _peer(path) as peers:
            ours, theirs = _speeds(mine, peers, count)
        script = Path(tmp) / "short.json"
        script.write_text(json.dumps([{"text": "Hello to you too."}] * 10_000), encoding="utf-8")
        with _parley(f"scripted:{script}", Path(tmp) / "scripted") as base:
            per_second = _many_clients(base)
    peer = "llama_cpp.server, same model"
    return [
        Row(GROUP, "time to first token, streamed", ours[0] * 1000, "ms", theirs[0] * 1000,
            peer, "<= peer + 20 ms", ours[0] <= theirs[0] + 0.020),
        Row(GROUP, "tokens per second after the first", ours[1], "tok/s", theirs[1], peer,
            ">= 95% of peer", ours[1] >= 0.95 * theirs[1], higher_is_better=True),
        Row(GROUP, f"short scripted answers per second, {CLIENTS} clients", per_second, "req/s",
            higher_is_better=True),
    ]  # fmt: skip
