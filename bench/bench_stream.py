"""Streaming a reply into an open thread: the cost of one chunk as the thread grows.

A reply of ``CHUNKS`` text deltas is streamed into threads of 10, 1,000 and 10,000 messages.
Parley's window applies each chunk to its ``MessageLog`` in place; ``add_messages`` (the graph's
reducer) returns a new list per chunk. The peer is what a LangGraph app does per chunk: add the
chunk to the message so far (``AIMessageChunk + chunk``) and upsert it with LangGraph's
``add_messages``, measured in the same run on the same conversation. A last row merges one
long reply chunk by chunk, beside merging it two messages at a time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from app.core.state import ChunkMerge, Message, MessageLog, TextBlock, add_messages, merge_chunk
from bench.bench_state import WORDS, best_us, langgraph_messages, parley_messages
from bench.table import Row

LENGTHS = (10, 1_000, 10_000)
CHUNKS = 500
LONG_REPLY_CHUNKS = 20_000
REPEATS = 3
TARGET_US = 20.0
REPLY_ID = "reply"


def _pieces(count: int = CHUNKS) -> list[str]:
    """The text deltas of one reply: a word and its space each, as a model streams them."""
    return [WORDS[k % len(WORDS)] + " " for k in range(count)]


def parley_chunks(count: int = CHUNKS) -> list[Message]:
    """The reply as Parley chunks (``delta=True``, one id)."""
    return [
        Message(role="assistant", message_id=REPLY_ID, delta=True, content=[TextBlock(text=p)])
        for p in _pieces(count)
    ]


def langgraph_chunks() -> list[Any]:
    """The reply as LangChain message chunks."""
    from langchain_core.messages import AIMessageChunk

    return [AIMessageChunk(id=REPLY_ID, content=p) for p in _pieces()]


def _timed(setup: Callable[[], Callable[[], object]], repeats: int, chunks: int = CHUNKS) -> float:
    """µs per chunk: best of ``repeats`` runs, each prepared afresh by ``setup``."""
    best = float("inf")
    for _ in range(repeats):
        best = min(best, best_us(setup(), chunks, repeats=1))
    return best


def _log_run(thread: list[Message], chunks: list[Message]) -> Callable[[], object]:
    log = MessageLog(thread)

    def run() -> None:
        for chunk in chunks:
            log.apply(chunk)

    return run


def _reducer_run(thread: list[Message], chunks: list[Message]) -> Callable[[], object]:
    def run() -> None:
        state = thread
        for chunk in chunks:
            state = add_messages(state, chunk)

    return run


def _langgraph_run(thread: list[Any], chunks: list[Any]) -> Callable[[], object]:
    from langgraph.graph.message import add_messages as lg_add_messages

    def run() -> None:
        state, so_far = thread, None
        for chunk in chunks:
            so_far = chunk if so_far is None else so_far + chunk
            state = lg_add_messages(state, [so_far])

    return run


def _merge_run(chunks: list[Message]) -> Callable[[], object]:
    def run() -> None:
        merge = ChunkMerge(chunks[0])
        for chunk in chunks[1:]:
            merge.add(chunk)
        merge.message()

    return run


def _pairwise_run(chunks: list[Message]) -> Callable[[], object]:
    def run() -> None:
        functools.reduce(merge_chunk, chunks)

    return run


def run() -> list[Row]:
    """One chunk streamed into threads of growing length: MessageLog, add_messages, LangGraph."""
    chunks, lg_chunks = parley_chunks(), langgraph_chunks()
    rows = []
    for n in LENGTHS:
        thread, lg_thread = parley_messages(n), langgraph_messages(n)
        log_us = _timed(functools.partial(_log_run, thread, chunks), REPEATS)
        reducer_us = _timed(functools.partial(_reducer_run, thread, chunks), REPEATS)
        # LangGraph rebuilds its id index on every call (~1 ms at 10,000): measured once.
        lg_us = _timed(functools.partial(_langgraph_run, lg_thread, lg_chunks), 1)
        name = f"stream one chunk into a thread of {n:,} messages"
        rows += [
            Row(
                "state",
                f"{name}: MessageLog",
                log_us,
                "µs/chunk",
                lg_us,
                "LangGraph",
                f"< {TARGET_US:g} µs",
                log_us < TARGET_US,
            ),
            Row("state", f"{name}: add_messages", reducer_us, "µs/chunk", lg_us, "LangGraph"),
        ]
    # The reply's own length: a message merged chunk by chunk up to 100,000 characters, beside
    # merging two messages at a time (which copies the text so far at every chunk).
    long = parley_chunks(LONG_REPLY_CHUNKS)
    size = sum(len(c.text()) for c in long)
    merge_us = _timed(functools.partial(_merge_run, long), REPEATS, LONG_REPLY_CHUNKS)
    pairwise_us = _timed(functools.partial(_pairwise_run, long), 1, LONG_REPLY_CHUNKS)
    rows.append(
        Row(
            "state",
            f"merge one chunk into a reply growing to {size:,} characters: ChunkMerge",
            merge_us,
            "µs/chunk",
            pairwise_us,
            "merge_chunk pairwise",
            f"< {TARGET_US:g} µs",
            merge_us < TARGET_US,
        )
    )
    return rows
