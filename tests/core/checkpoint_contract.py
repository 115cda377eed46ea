"""The contract every checkpointer passes: one suite, run against each implementation.

Subclass :class:`CheckpointerContract` in a ``Test*`` class and give it a ``checkpointer``
fixture yielding a fresh, empty checkpointer (see ``tests/core/test_checkpoint_memory.py`` and
``tests/store/test_checkpoint_sqlite.py``).
"""

from __future__ import annotations

import operator
import random
from typing import Annotated, Any

import pytest
from pydantic import Field

from app.core.checkpoint import Checkpoint, Checkpointer, StateChanges, new_checkpoint_id
from app.core.errors import CheckpointConflict
from app.core.state import (
    REMOVE_ALL_MESSAGES,
    AgentState,
    AnnotationBlock,
    AnnotationRef,
    AudioBlock,
    DataBlock,
    DocumentBlock,
    ErrorBlock,
    ExecMeta,
    ImageBlock,
    Interrupt,
    MediaRef,
    Message,
    PendingTask,
    ReasoningBlock,
    RemoveMessage,
    TextBlock,
    TokenUsages,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
    apply_update,
)
from app.core.state.serde import dump_state

__all__ = ["CheckpointerContract", "RichState", "Saver", "every_block_message"]


class RichState(AgentState):
    """A custom state with fields of its own, one of them reduced."""

    notes: list[str] = Field(default_factory=list)
    total: Annotated[int, operator.add] = 0
    pinned: list[Message] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


def every_block_message(message_id: str | int = "all-blocks") -> Message:
    """A message holding one block of every kind, with every optional field set."""
    png = MediaRef(kind="data", data_base64="iVBORw0KGgo=", mime_type="image/png", size_bytes=8)
    return Message(
        message_id=message_id,
        role="assistant",
        content=[
            TextBlock(
                text="Voilà — 日本語 ✓",
                annotations=[AnnotationRef(url="https://e.x/a", title="A", start_index=0)],
            ),
            ImageBlock(media=png, alt_text="a pixel", bbox=[0.0, 0.5, 1.0, 1.0]),
            AudioBlock(
                media=MediaRef(kind="url", url="https://e.x/a.ogg", mime_type="audio/ogg"),
                transcript="hello",
                sample_rate=48000,
                channels=2,
                duration_s=1.25,
            ),
            VideoBlock(
                media=MediaRef(kind="file_id", file_id="f" * 64, sha256="f" * 64),
                thumbnail=png,
                duration_s=3.5,
            ),
            DocumentBlock(
                media=MediaRef(kind="url", url="file:///tmp/x.pdf", filename="x.pdf"),
                text="full text",
                pages=[1, 2],
                excerpt="an excerpt",
                title="X",
            ),
            DataBlock(mime_type="application/json", data={"a": [1, 2.5, None, True]}),
            ToolCallBlock(id="call_1", name="search", args={"q": "x", "n": 3}, index=0),
            ToolCallBlock(
                id="call_2", name="", partial_args='{"q": "unfinis', tool_type="web_search"
            ),
            ToolResultBlock(call_id="call_1", output={"hits": ["a"]}, status="error", name="s"),
            ReasoningBlock(text="thinking", signature="sig"),
            ErrorBlock(error="boom", tool_call_id="call_1", code="E1"),
            AnnotationBlock(annotation=AnnotationRef(url="https://e.x/b", snippet="s")),
        ],
        delta=False,
        tools_calls=[{"id": "call_1", "function": {"name": "search"}}],
        reasoning="because",
        timestamp=1700000000.123456,
        metadata={"model": "m", "nested": {"k": [1, "2"]}},
        usages=TokenUsages(prompt_tokens=3, completion_tokens=4, total_tokens=7, audio_tokens=None),
        raw={"provider": {"id": 1}},
    )


def rich_state() -> RichState:
    """A :class:`RichState` with every kind of content and execution metadata set."""
    return RichState(
        context=[
            Message.text_message("hi", role="system", message_id=7, timestamp=None),
            Message.text_message("question", role="user", message_id="7"),
            every_block_message(),
            Message.tool_message([ToolResultBlock(call_id="call_1", output="ok")]),
        ],
        context_summary="earlier we talked",
        execution_meta=ExecMeta(
            current_node="tools",
            step=4,
            status="interrupted",
            thread_id="rich",
            next_tasks=[PendingTask(node="tools", task_id="t-1")],
            interrupts=[Interrupt(id="i-1", node="tools", value={"calls": ["call_1"]}, step=4)],
            resume={"i-0": {"approved": True}},
        ),
        notes=["n1", "n2"],
        total=5,
        pinned=[Message.text_message("pinned", role="assistant")],
        extra={"x": [1, {"y": None}]},
    )


def changes_of(update: Any, state: AgentState) -> StateChanges:
    """What the engine reports for one update of the conversation, ``state`` being the result
    (as the graph's change tracker does: only ids present are upserted, only ids gone are
    removed, so a message removed and added again is reported as upserted only)."""
    items = update if isinstance(update, list) else [update]
    upserted: dict[str | int, None] = {}
    removed: dict[str | int, None] = {}
    cleared = False
    for item in items:
        if isinstance(item, RemoveMessage):
            if item.id == REMOVE_ALL_MESSAGES:
                cleared = True
                upserted.clear()
                removed.clear()
            else:
                removed[item.id] = None
                upserted.pop(item.id, None)
        else:
            upserted.pop(item.message_id, None)
            upserted[item.message_id] = None
    present = {m.message_id for m in state.context}
    return StateChanges(
        fields=frozenset({"execution_meta"}),
        upserted=tuple(m for m in upserted if m in present),
        removed=tuple(m for m in removed if m not in present),
        cleared=cleared,
    )


class Saver:
    """Drives one thread like the engine does: apply an update, save a checkpoint."""

    def __init__(self, cp: Checkpointer, thread_id: str, state: AgentState, full: bool = False):
        self.cp, self.thread_id, self.state, self.full = cp, thread_id, state, full
        self.parent: str | None = None
        self.saved: list[tuple[str, bytes]] = []  # (checkpoint id, exact state JSON)
        self.step = 0

    async def save(self, changes: StateChanges | None, source: str = "loop") -> str:
        """Save the current state as a child of the last checkpoint."""
        cid = new_checkpoint_id()
        self.state.execution_meta.step = self.step
        cp = Checkpoint(
            thread_id=self.thread_id,
            checkpoint_id=cid,
            parent_id=self.parent,
            step=self.step,
            state=self.state.model_copy(deep=True),
            source=source,  # type: ignore[arg-type]
        )
        await self.cp.aput(cp, None if self.full or self.parent is None else changes)
        self.parent = cid
        self.saved.append((cid, dump_state(cp.state)))
        return cid

    async def apply(self, update: Any) -> str:
        """Apply one conversation update and save it with its changes."""
        self.step += 1
        self.state = apply_update(self.state, {"context": update})
        return await self.save(changes_of(update, self.state))


def _random_update(rng: random.Random, state: AgentState, counter: list[int]) -> Any:
    ids = [m.message_id for m in state.context]
    items: list[Any] = []
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        counter[0] += 1
        n = counter[0]
        if roll < 0.45 or not ids:
            mid = n if rng.random() < 0.2 else f"m{n}"
            items.append(Message.text_message(f"new {n} lorem", role="user", message_id=mid))
            ids.append(mid)
        elif roll < 0.65:
            target = rng.choice(ids)
            items.append(Message.text_message(f"edited {n}", role="assistant", message_id=target))
        elif roll < 0.75:
            target = ids[-1]
            chunk = Message(role="assistant", message_id=target, content=f" +{n}", delta=True)
            items.append(chunk)
        elif roll < 0.88:
            target = rng.choice(ids)
            items.append(RemoveMessage(id=target))
            ids.remove(target)
        elif roll < 0.95 and ids:
            target = rng.choice(ids)  # removed and added again: moves to the end
            items.append(RemoveMessage(id=target))
            items.append(Message.text_message(f"moved {n}", role="user", message_id=target))
            ids.remove(target)
            ids.append(target)
        else:
            items.append(RemoveMessage(id=REMOVE_ALL_MESSAGES))
            ids.clear()
    return items


async def _assert_exact(cp: Checkpointer, saver: Saver, state_cls: type[AgentState]) -> None:
    for cid, expected in saver.saved:
        got = await cp.aget(saver.thread_id, state_cls, cid)
        assert got is not None, cid
        assert dump_state(got.state) == expected, f"checkpoint {cid} differs"


class CheckpointerContract:
    """Tests every :class:`Checkpointer` must pass. Needs a ``checkpointer`` fixture."""

    async def test_empty_thread_has_nothing(self, checkpointer: Checkpointer) -> None:
        assert isinstance(checkpointer, Checkpointer)
        assert await checkpointer.aget("nope", AgentState) is None
        assert await checkpointer.alist("nope") == []
        assert await checkpointer.apending_interrupts("nope") == []
        await checkpointer.adelete_thread("nope")

    async def test_put_then_get_latest(self, checkpointer: Checkpointer) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        await saver.apply(Message.text_message("one"))
        last = await saver.apply(Message.text_message("two", role="assistant"))
        got = await checkpointer.aget("t", AgentState)
        assert got is not None
        assert got.checkpoint_id == last
        assert got.parent_id == saver.saved[0][0]
        assert got.step == 2
        assert got.source == "loop"
        assert got.state == saver.state
        assert [m.text() for m in got.state.context] == ["one", "two"]

    async def test_get_by_id_and_unknown_id(self, checkpointer: Checkpointer) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        first = await saver.apply(Message.text_message("one"))
        await saver.apply(Message.text_message("two"))
        got = await checkpointer.aget("t", AgentState, first)
        assert got is not None and got.checkpoint_id == first
        assert [m.text() for m in got.state.context] == ["one"]
        assert await checkpointer.aget("t", AgentState, "no-such-id") is None
        assert await checkpointer.aget("other", AgentState, first) is None

    async def test_history_newest_first_with_limit_and_before(
        self, checkpointer: Checkpointer
    ) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        ids = [await saver.apply(Message.text_message(f"m{i}")) for i in range(5)]
        infos = await checkpointer.alist("t")
        assert [i.checkpoint_id for i in infos] == ids[::-1]
        assert [i.message_count for i in infos] == [5, 4, 3, 2, 1]
        assert [i.parent_id for i in infos] == [*ids[::-1][1:], None]
        assert [i.step for i in infos] == [5, 4, 3, 2, 1]
        assert all(i.thread_id == "t" for i in infos)
        assert [i.checkpoint_id for i in await checkpointer.alist("t", limit=2)] == ids[:2:-1]
        older = await checkpointer.alist("t", before=ids[3])
        assert [i.checkpoint_id for i in older] == ids[2::-1]
        page = await checkpointer.alist("t", before=ids[3], limit=1)
        assert [i.checkpoint_id for i in page] == [ids[2]]

    async def test_pending_interrupts_follow_the_latest_checkpoint(
        self, checkpointer: Checkpointer
    ) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        await saver.apply(Message.text_message("run the tool"))
        asked = [
            Interrupt(id="i1", node="tools", value={"calls": [{"name": "rm", "args": {}}]}, step=1),
            Interrupt(id="i2", node="tools", value="second", step=1),
        ]
        meta = saver.state.execution_meta
        meta.interrupts = list(asked)
        meta.next_tasks = [PendingTask(node="tools", task_id="task-1")]
        meta.status = "interrupted"
        paused = await saver.save(StateChanges(fields=frozenset({"execution_meta"})))
        assert await checkpointer.apending_interrupts("t") == asked
        info = (await checkpointer.alist("t", limit=1))[0]
        assert info.checkpoint_id == paused
        assert info.interrupts == tuple(asked)
        assert info.next_nodes == ("tools",)
        meta.interrupts, meta.next_tasks, meta.status = [], [], "completed"
        await saver.apply(Message.text_message("done", role="assistant"))
        assert await checkpointer.apending_interrupts("t") == []
        back = await checkpointer.aget("t", AgentState, paused)
        assert back is not None and back.state.execution_meta.interrupts == asked

    async def test_delete_thread_leaves_others(self, checkpointer: Checkpointer) -> None:
        a = Saver(checkpointer, "a", AgentState())
        b = Saver(checkpointer, "b", AgentState())
        await a.apply(Message.text_message("a1"))
        await b.apply(Message.text_message("b1"))
        await checkpointer.adelete_thread("a")
        assert await checkpointer.aget("a", AgentState) is None
        assert await checkpointer.alist("a") == []
        got = await checkpointer.aget("b", AgentState)
        assert got is not None and got.state.context[0].text() == "b1"
        a = Saver(checkpointer, "a", AgentState())  # the id can be used again
        await a.apply(Message.text_message("again"))
        got = await checkpointer.aget("a", AgentState)
        assert got is not None and [m.text() for m in got.state.context] == ["again"]

    async def test_custom_state_with_every_block_round_trips_exactly(
        self, checkpointer: Checkpointer
    ) -> None:
        state = rich_state()
        cp = Checkpoint("rich", new_checkpoint_id(), None, 4, state, source="input")
        await checkpointer.aput(cp, None)
        got = await checkpointer.aget("rich", RichState)
        assert got is not None
        assert type(got.state) is RichState
        assert got.state == state
        assert dump_state(got.state) == dump_state(state)
        assert got.created_at == cp.created_at and got.source == "input"
        block_types = {b.type for b in got.state.context[2].content}
        assert len(block_types) == 11
        assert got.state.context[0].message_id == 7
        assert got.state.context[1].message_id == "7"

    async def test_a_state_given_whole_is_kept_as_it_is(self, checkpointer: Checkpointer) -> None:
        twice = Message.text_message("same id twice", message_id="dup")
        state = AgentState(context=[twice, Message.text_message("x"), twice])
        await checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
        got = await checkpointer.aget("t", AgentState)
        assert got is not None and got.state == state

    async def test_time_travel_sees_old_versions_after_edits_and_removals(
        self, checkpointer: Checkpointer
    ) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        await saver.apply([Message.text_message(f"m{i}", message_id=f"m{i}") for i in range(4)])
        await saver.apply(Message.text_message("m1 edited", message_id="m1"))
        await saver.apply(RemoveMessage(id="m2"))
        await saver.apply(Message(role="assistant", message_id="m3", content=" more", delta=True))
        await saver.apply(RemoveMessage(id=REMOVE_ALL_MESSAGES))
        await saver.apply(Message.text_message("fresh", message_id="m1"))
        await _assert_exact(checkpointer, saver, AgentState)
        texts = []
        for cid, _ in saver.saved:
            got = await checkpointer.aget("t", AgentState, cid)
            assert got is not None
            texts.append([m.text() for m in got.state.context])
        assert texts == [
            ["m0", "m1", "m2", "m3"],
            ["m0", "m1 edited", "m2", "m3"],
            ["m0", "m1 edited", "m3"],
            ["m0", "m1 edited", "m3 more"],
            [],
            ["fresh"],
        ]

    async def test_resume_from_an_older_checkpoint_branches(
        self, checkpointer: Checkpointer
    ) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        await saver.apply(Message.text_message("q1", message_id="q1"))
        fork_point = await saver.apply(Message.text_message("a1", message_id="a1"))
        await saver.apply(Message.text_message("q2", message_id="q2"))
        await saver.apply(Message.text_message("a1 changed", message_id="a1"))
        first_branch = list(saver.saved)
        old = await checkpointer.aget("t", AgentState, fork_point)
        assert old is not None
        branch = Saver(checkpointer, "t", old.state)
        branch.parent, branch.step = fork_point, old.step
        branch.step += 1
        branch.state = apply_update(branch.state, {"context": Message.text_message("q2'")})
        resumed = await branch.save(None, source="resume")
        await branch.apply(Message.text_message("a2'", role="assistant"))
        await branch.apply(Message.text_message("a1 again", message_id="a1"))
        latest = await checkpointer.aget("t", AgentState)
        assert latest is not None and latest.state == branch.state
        assert [m.text() for m in latest.state.context] == ["q1", "a1 again", "q2'", "a2'"]
        saver.saved = first_branch
        await _assert_exact(checkpointer, saver, AgentState)
        await _assert_exact(checkpointer, branch, AgentState)
        infos = await checkpointer.alist("t")
        assert len(infos) == 7
        assert next(i for i in infos if i.checkpoint_id == resumed).parent_id == fork_point

    async def test_changes_against_a_stale_parent_are_a_conflict(
        self, checkpointer: Checkpointer
    ) -> None:
        # two runs loaded the same checkpoint; the second one to save must not overwrite the
        # first one's step: it is refused and nothing of it is saved
        saver = Saver(checkpointer, "t", AgentState())
        await saver.apply(Message.text_message("one", message_id="1"))
        base = await saver.apply(Message.text_message("two", message_id="2"))
        await saver.apply(Message.text_message("three (run A)", message_id="3"))
        kept = await checkpointer.aget("t", AgentState)
        assert kept is not None
        other = Saver(checkpointer, "t", apply_update(AgentState(), {"context": []}))
        other.parent, other.step = base, 2
        other.state = apply_update(kept.state, {"context": RemoveMessage(id="3")})
        with pytest.raises(CheckpointConflict, match="another Parley window or process"):
            await other.apply(Message.text_message("three (run B)", message_id="4"))
        latest = await checkpointer.aget("t", AgentState)
        assert latest is not None
        assert latest.checkpoint_id == kept.checkpoint_id
        assert [m.text() for m in latest.state.context] == ["one", "two", "three (run A)"]
        # a deliberate branch from an older checkpoint (a full write) is still allowed
        other.full = True
        await other.apply(Message.text_message("branch", message_id="5"))
        await _assert_exact(checkpointer, other, AgentState)

    async def test_wrong_changes_do_not_corrupt_the_state(self, checkpointer: Checkpointer) -> None:
        saver = Saver(checkpointer, "t", AgentState())
        await saver.apply([Message.text_message(f"{i}", message_id=i) for i in range(3)])
        saver.step += 1
        saver.state = apply_update(
            saver.state, {"context": [Message.text_message("x", message_id="x")]}
        )
        await saver.save(StateChanges())  # claims nothing changed
        saver.step += 1
        saver.state = apply_update(saver.state, {"context": [RemoveMessage(id=1)]})
        await saver.save(StateChanges(upserted=(2,)))  # names the wrong message
        await _assert_exact(checkpointer, saver, AgentState)

    async def test_threads_are_independent(self, checkpointer: Checkpointer) -> None:
        a = Saver(checkpointer, "a", AgentState())
        b = Saver(checkpointer, "b", AgentState())
        for i in range(3):
            await a.apply(Message.text_message(f"a{i}", message_id=f"x{i}"))
            await b.apply(Message.text_message(f"b{i}", message_id=f"x{i}"))
        await _assert_exact(checkpointer, a, AgentState)
        await _assert_exact(checkpointer, b, AgentState)
        assert len(await checkpointer.alist("a")) == 3

    @pytest.mark.parametrize("seed", range(6))
    async def test_only_changes_writes_equal_full_writes(
        self, checkpointer: Checkpointer, seed: int
    ) -> None:
        rng = random.Random(seed)
        start = RichState(notes=["start"])
        delta = Saver(checkpointer, "delta", start)
        full = Saver(checkpointer, "full", start.model_copy(deep=True), full=True)
        counter = [0]
        for step in range(40):
            update = _random_update(rng, delta.state, counter)
            if step % 7 == 3:
                delta.state = apply_update(delta.state, {"notes": [f"n{step}"], "total": 1})
                full.state = apply_update(full.state, {"notes": [f"n{step}"], "total": 1})
            await delta.apply(update)
            await full.apply(update)
            assert dump_state(delta.state) == dump_state(full.state)
            got = await checkpointer.aget("delta", RichState)
            assert got is not None
            assert got.state == delta.state, f"seed {seed} step {step}: {update!r}"
        await _assert_exact(checkpointer, delta, RichState)
        await _assert_exact(checkpointer, full, RichState)
        for (_, a), (_, b) in zip(delta.saved, full.saved, strict=True):
            assert a == b
