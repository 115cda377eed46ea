"""A streamed reply is merged once per chunk on its way from the model to the views: the
model call's merge is the one the chat reads, a delegate's reply included. Real SQLite file,
scripted model streaming in small chunks, the real merge counted where it runs."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from app.core.models import ScriptedChatModel
from app.core.state import ChunkMerge, Message
from app.services.agents import Agent
from app.services.events import MessageAdded, MessageStreamed, WorkspaceEvent
from app.store import Store
from tests.services.conversations import conversation

REPLY = "Streamed in many small pieces, each merged once."
DELEGATED = "The researcher's findings, streamed in small pieces too."


def count_merges(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count, by message id, every chunk the real :class:`ChunkMerge` takes in (the first one
    it starts from and each one added)."""
    merged: Counter[str] = Counter()
    start, add = ChunkMerge.__init__, ChunkMerge.add

    def counted_start(self: ChunkMerge, first: Message) -> None:
        merged[str(first.message_id)] += 1
        start(self, first)

    def counted_add(self: ChunkMerge, chunk: Message) -> None:
        merged[str(chunk.message_id)] += 1
        add(self, chunk)

    monkeypatch.setattr(ChunkMerge, "__init__", counted_start)
    monkeypatch.setattr(ChunkMerge, "add", counted_add)
    return merged


async def test_each_chunk_of_a_reply_is_merged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    merged = count_merges(monkeypatch)
    seen: list[WorkspaceEvent] = []
    store = Store.open(tmp_path / "parley.db")
    chat = conversation(store, ScriptedChatModel([REPLY], chunk_size=3), on_event=seen.append)
    try:
        thread = await chat.new_thread("stream")
        await chat.send(thread.id, "say it")
        [reply] = [e.message for e in seen if isinstance(e, MessageAdded)][1:]
        streamed = [e for e in seen if isinstance(e, MessageStreamed)]
        assert streamed[-1].message.text() == REPLY  # what the chat showed as it arrived
        assert reply.text() == REPLY
        chunks = len(streamed)
        assert chunks == math.ceil(len(REPLY) / 3) + 1  # the text's pieces, the closing one
        assert merged[str(reply.message_id)] == chunks
    finally:
        await chat.workspace.aclose()
        await store.aclose()


async def test_each_chunk_of_a_delegates_reply_is_merged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    merged = count_merges(monkeypatch)
    seen: list[WorkspaceEvent] = []
    store = Store.open(tmp_path / "parley.db")
    ask = {"tool_calls": [{"name": "ask_researcher", "args": {"task": "Look it up."}}]}
    model = ScriptedChatModel([ask, DELEGATED, "Thanks, noted."], chunk_size=3)
    chat = conversation(store, model, on_event=seen.append)
    try:
        agents = chat.workspace.agents
        await agents.add(Agent(name="Researcher", instructions="You research."))
        keeper = await agents.add(Agent(name="Keeper", delegates=("Researcher",)))
        thread = await chat.new_thread("ask", agent_id=keeper.id)
        await chat.send(thread.id, "find out")
        replies = [
            e.message
            for e in seen
            if isinstance(e, MessageAdded)
            and e.message.agent == "Researcher"
            and e.message.role == "assistant"
        ]
        reply = replies[-1]  # as the asking step saved it
        streamed = [
            e for e in seen if isinstance(e, MessageStreamed) and e.message_id == reply.message_id
        ]
        # what the chat showed as it arrived: the delegate's words, already marked as its own
        assert streamed[-1].message.text() == DELEGATED
        assert streamed[-1].message.agent == "Researcher"
        assert reply.text() == DELEGATED
        chunks = len(streamed)
        assert chunks == math.ceil(len(DELEGATED) / 3) + 1  # the text's pieces, the closing one
        assert merged[str(reply.message_id)] == chunks
    finally:
        await chat.workspace.aclose()
        await store.aclose()
