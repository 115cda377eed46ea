"""Thread operations: list, rename, archive, delete, fork, search, export and import."""

from __future__ import annotations

import json

import pytest

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.errors import UserError
from app.core.state import AgentState, ImageBlock, MediaRef, Message, RemoveMessage, apply_update
from app.core.state.serde import dump_state
from app.store import Store
from tests.core.checkpoint_contract import RichState, every_block_message
from tests.store.helpers import append_messages, scalar


async def test_new_thread_is_listed_most_recent_first_and_paginated(store: Store) -> None:
    for i in range(5):
        await store.create_thread(f"t{i}", model="scripted:x", thread_id=f"id{i}")
    await append_messages(store.checkpointer, "id1", ["bump"])
    titles = [t.title for t in await store.list_threads()]
    assert titles[0] == "t1"
    assert set(titles) == {f"t{i}" for i in range(5)}
    page1 = await store.list_threads(limit=2)
    page2 = await store.list_threads(limit=2, offset=2)
    page3 = await store.list_threads(limit=2, offset=4)
    assert [t.id for t in page1 + page2 + page3] == [t.id for t in await store.list_threads()]
    assert len(page3) == 1


async def test_first_checkpoint_creates_a_titled_thread(store: Store) -> None:
    await append_messages(store.checkpointer, "t", ["How do I bake bread?\nDetails", "Knead."])
    thread = await store.get_thread("t")
    assert thread is not None
    assert thread.title == "How do I bake bread?"
    assert thread.message_count == 2
    assert thread.head_checkpoint_id is not None


async def test_rename_archive_and_settings(store: Store) -> None:
    thread = await store.create_thread("old", system_prompt="be brief")
    renamed = await store.rename_thread(thread.id, "  new name ")
    assert renamed.title == "new name"
    updated = await store.update_thread(thread.id, model="ollama:qwen", archived=True)
    assert (updated.model, updated.system_prompt, updated.archived) == (
        "ollama:qwen",
        "be brief",
        True,
    )
    assert await store.list_threads() == []
    assert [t.id for t in await store.list_threads(archived=True)] == [thread.id]
    assert [t.id for t in await store.list_threads(archived=None)] == [thread.id]
    with pytest.raises(UserError):
        await store.rename_thread("missing", "x")


async def test_delete_removes_everything_and_unshared_media(store: Store) -> None:
    shared = await store.store_media(b"shared bytes", "image/png")
    own = await store.store_media(b"own bytes", "image/png")
    for tid, shas in (("a", [shared, own]), ("b", [shared])):
        msg = Message(
            role="user",
            content=[ImageBlock(media=MediaRef(kind="file_id", file_id=s, sha256=s)) for s in shas],
        )
        state = AgentState(context=[msg])
        await store.checkpointer.aput(Checkpoint(tid, new_checkpoint_id(), None, 0, state), None)
    await store.allow_always("shell", thread_id="a")
    await store.record_approval(
        thread_id="a", tool="shell", args_fingerprint="0" * 64, decision="approve"
    )
    await store.delete_thread("a")
    assert await store.get_thread("a") is None
    assert await store.get_media(own) is None
    blob = await store.get_media(shared)
    assert blob is not None and blob.data == b"shared bytes"
    assert await store.list_allow_rules(thread_id="a", include_global=False) == []
    assert len(await store.list_approvals(thread_id="a")) == 1  # the audit log stays
    for table in ("checkpoints", "messages", "pending_interrupts", "thread_media"):
        n = scalar(store.path, f"SELECT count(*) FROM {table} WHERE thread_id = 'a'")
        assert n == 0, table
    assert await store.search("anything") == []
    await store.delete_thread("b")
    assert await store.get_media(shared) is None


async def test_search_finds_current_text_with_snippets(store: Store) -> None:
    state, parent = await append_messages(
        store.checkpointer, "t", ["The quick brown fox", "jumps over the lazy dog", "Über café"]
    )
    await append_messages(store.checkpointer, "u", ["a fox in another thread"])
    hits = await store.search("fox")
    assert {h.thread_id for h in hits} == {"t", "u"}
    hit = next(h for h in hits if h.thread_id == "t")
    assert hit.snippet == "The quick brown [fox]"
    assert hit.role == "user"
    assert hit.thread_title == "The quick brown fox"
    assert [h.snippet for h in await store.search("qui", marks=("<b>", "</b>"))] == [
        "The <b>quick</b> brown fox"
    ]
    assert len(await store.search("cafe")) == 1  # diacritics folded
    assert len(await store.search('"fox" (*')) == 2  # typed syntax is taken as words
    assert await store.search("   ") == []
    assert [h.thread_id for h in await store.search("fox", thread_id="u")] == ["u"]
    # an edit replaces what is indexed; a removal drops it
    first = state.context[0]
    edited = first.model_copy(update={"content": Message.text_message("a red panda").content})
    state = apply_update(state, edited)
    cid = new_checkpoint_id()
    await store.checkpointer.aput(
        Checkpoint("t", cid, parent, 9, state), StateChanges(upserted=(first.message_id,))
    )
    assert [h.thread_id for h in await store.search("fox")] == ["u"]
    assert len(await store.search("panda")) == 1
    state = apply_update(state, RemoveMessage(id=first.message_id))
    await store.checkpointer.aput(
        Checkpoint("t", new_checkpoint_id(), cid, 10, state),
        StateChanges(removed=(first.message_id,)),
    )
    assert await store.search("panda") == []
    await store.update_thread("u", archived=True)
    assert await store.search("fox") == []
    assert len(await store.search("fox", include_archived=True)) == 1


async def test_fork_from_a_checkpoint_and_at_a_message(store: Store) -> None:
    state, _ = await append_messages(store.checkpointer, "t", ["q1", "a1", "q2", "a2"])
    history = await store.checkpointer.alist("t")
    at_second = history[2].checkpoint_id  # after "a1"
    branch = await store.fork_thread("t", checkpoint_id=at_second)
    assert branch.id != "t" and branch.title.endswith("(branch)")
    got = await store.checkpointer.aget(branch.id, AgentState)
    assert got is not None and [m.text() for m in got.state.context] == ["q1", "a1"]
    assert got.source == "fork" and got.parent_id is None
    cut = await store.fork_thread("t", at_message=state.context[2].message_id, title="Alt")
    got = await store.checkpointer.aget(cut.id, AgentState)
    assert got is not None and [m.text() for m in got.state.context] == ["q1", "a1", "q2"]
    assert cut.title == "Alt"
    original = await store.checkpointer.aget("t", AgentState)
    assert original is not None and original.state == state
    with pytest.raises(UserError):
        await store.fork_thread("t", at_message="nope")
    with pytest.raises(UserError):
        await store.fork_thread("missing")


def _carried_media_only(message: Message) -> Message:
    """The message without its blocks whose media an export cannot carry (links, media not
    stored): what a thread exported from Parley holds."""
    content = [
        b for b in message.content if getattr(b, "media", None) is None or b.media.kind == "data"
    ]
    return message.model_copy(update={"content": content})


async def test_export_json_then_import_gives_the_same_thread(store: Store) -> None:
    sha = await store.store_media(b"\x89PNG fake", "image/png")
    state = RichState(
        context=[
            _carried_media_only(every_block_message()),
            Message(role="user", content=[ImageBlock(media=MediaRef(kind="file_id", file_id=sha))]),
        ],
        notes=["kept"],
    )
    await store.create_thread("Exported", model="local", system_prompt="sys", thread_id="t")
    await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 3, state), None)
    data = await store.export_json("t", state_cls=RichState)
    doc = json.loads(data)
    assert doc["format"] == "parley.thread" and doc["media"][0]["sha256"] == sha
    await store.delete_thread("t")
    assert await store.get_media(sha) is None
    imported = await store.import_json(data, state_cls=RichState)
    assert (imported.title, imported.model, imported.system_prompt) == ("Exported", "local", "sys")
    got = await store.checkpointer.aget(imported.id, RichState)
    assert got is not None and dump_state(got.state) == dump_state(state)
    assert imported.notes == ()
    blob = await store.get_media(sha)
    assert blob is not None and blob.data == b"\x89PNG fake"


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[]",
        json.dumps({"format": "other"}).encode(),
        json.dumps({"format": "parley.thread", "version": 99, "state": {}}).encode(),
        json.dumps({"format": "parley.thread", "version": 1, "state": {"context": 5}}).encode(),
        *(
            json.dumps(
                {"format": "parley.thread", "version": 1, "state": {}, "thread": bad}
            ).encode()
            for bad in (
                {"created_at": "yesterday"},
                {"model": {"name": "x"}},
                {"system_prompt": ["be kind"]},
                {"title": 3},
            )
        ),
    ],
)
async def test_import_rejects_what_is_not_an_export(store: Store, data: bytes) -> None:
    with pytest.raises(UserError, match="not a Parley thread export"):
        await store.import_json(data)
    assert await store.list_threads(archived=None) == []


async def test_markdown_export_shows_every_block(store: Store) -> None:
    await store.create_thread("Blocks", system_prompt="Be kind", thread_id="t")
    state = AgentState(context=[Message.text_message("hi"), every_block_message()])
    await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
    md = await store.export_markdown("t")
    for expected in (
        "# Blocks",
        "> Be kind",
        "## You",
        "## Assistant",
        "Voilà",
        "![a pixel]",
        "Audio",
        "Video",
        "📄 X",
        "application/json",
        "Calls tool `search`",
        "Result of `s` call call_1 (failed)",
        "Reasoning",
        "**Error:** boom",
        "Source: [https://e.x/b]",
    ):
        assert expected in md, expected


async def test_an_empty_thread_takes_its_title_from_the_first_question(store: Store) -> None:
    thread = await store.create_thread(model="local")
    await append_messages(store.checkpointer, thread.id, ["Plan a trip to Lyon", "Sure."])
    named = await store.get_thread(thread.id)
    assert named is not None and named.title == "Plan a trip to Lyon" and named.model == "local"
    kept = await store.create_thread("My title")
    await append_messages(store.checkpointer, kept.id, ["Something else"])
    again = await store.get_thread(kept.id)
    assert again is not None and again.title == "My title"


def test_markdown_labels_only_json_as_json() -> None:
    from app.store._markdown import _fence

    assert _fence("Sunny, 22 °C").startswith("```\n")
    assert _fence({"temp": 22}).startswith("```json\n")
    assert _fence("has ``` inside").startswith("````\n")
