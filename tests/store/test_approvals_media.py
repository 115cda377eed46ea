"""The approval audit log, "always allow" rules, and content-addressed media."""

from __future__ import annotations

import hashlib

import pytest

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.errors import UserError
from app.core.state import AgentState, ImageBlock, MediaRef, Message
from app.store import Store, fingerprint_args
from tests.store.helpers import peek, scalar


def test_fingerprint_is_stable_and_hides_the_arguments() -> None:
    a = fingerprint_args({"path": "/tmp/x", "token": "s3cret", "n": 1})
    b = fingerprint_args({"n": 1, "token": "s3cret", "path": "/tmp/x"})
    assert a == b and len(a) == 64 and "s3cret" not in a
    assert fingerprint_args({"n": 2}) != fingerprint_args({"n": 1})


async def test_audit_log_records_and_lists_newest_first(store: Store) -> None:
    fp = fingerprint_args({"cmd": "ls"})
    first = await store.record_approval(
        thread_id="t", tool="shell", args_fingerprint=fp, decision="approve", at=1.0
    )
    await store.record_approval(
        thread_id="t",
        tool="shell",
        args_fingerprint=fp,
        decision="deny",
        scope="once",
        reason="too risky",
        at=2.0,
    )
    await store.record_approval(
        thread_id=None, tool="fetch", args_fingerprint=fp, decision="always", scope="tool", at=3.0
    )
    log = await store.list_approvals()
    assert [r.decision for r in log] == ["always", "deny", "approve"]
    assert log[1].reason == "too risky" and log[2] == first
    assert [r.tool for r in await store.list_approvals(thread_id="t")] == ["shell", "shell"]
    assert [r.tool for r in await store.list_approvals(tool="fetch")] == ["fetch"]
    with pytest.raises(UserError):
        await store.record_approval(thread_id="t", tool="x", args_fingerprint=fp, decision="maybe")
    with pytest.raises(UserError):
        await store.record_approval(
            thread_id="t", tool="x", args_fingerprint=fp, decision="edit", scope="forever"
        )
    with pytest.raises(UserError):
        await store.record_approval(
            thread_id="t", tool="x", args_fingerprint="{'cmd': 'ls'}", decision="edit"
        )


async def test_always_allow_rules(store: Store) -> None:
    assert not await store.is_allowed("shell", thread_id="t1")
    rule = await store.allow_always("shell", thread_id="t1")
    assert await store.allow_always("shell", thread_id="t1") == rule  # idempotent
    assert await store.is_allowed("shell", thread_id="t1")
    assert not await store.is_allowed("shell", thread_id="t2")
    await store.allow_always("fetch")
    assert await store.is_allowed("fetch", thread_id="t2")
    assert await store.is_allowed("fetch")
    assert await store.allow_always("fetch") == (await store.list_allow_rules())[0]
    assert {(r.tool, r.thread_id) for r in await store.list_allow_rules()} == {
        ("fetch", None),
        ("shell", "t1"),
    }
    assert [r.tool for r in await store.list_allow_rules(thread_id="t1")] == ["fetch", "shell"]
    assert [r.tool for r in await store.list_allow_rules(thread_id="t1", include_global=False)] == [
        "shell"
    ]
    assert await store.revoke_allow_rule("shell", thread_id="t1")
    assert not await store.revoke_allow_rule("shell", thread_id="t1")
    assert not await store.is_allowed("shell", thread_id="t1")
    assert await store.revoke_allow_rule("fetch")
    assert await store.list_allow_rules() == []


async def test_media_is_stored_once_by_content(store: Store) -> None:
    data = bytes(range(256)) * 4096  # 1 MiB
    sha = await store.store_media(data, "application/octet-stream")
    assert sha == hashlib.sha256(data).hexdigest()
    assert await store.store_media(data, "application/octet-stream") == sha
    thread = await store.create_thread("t")
    assert await store.store_media(data, "image/png", thread_id=thread.id) == sha
    assert scalar(store.path, "SELECT count(*) FROM media") == 1
    blob = await store.get_media(sha.upper())
    assert blob is not None and blob.data == data and blob.mime_type == "application/octet-stream"
    assert await store.get_media("0" * 64) is None
    with pytest.raises(UserError):
        await store.get_media("not-a-hash")
    with pytest.raises(UserError):
        await store.link_media(thread.id, "0" * 64)
    with pytest.raises(UserError):
        await store.store_media(b"x", "text/plain", thread_id="no-such-thread")
    with peek(store.path) as conn:
        links = conn.execute("SELECT thread_id, sha256 FROM thread_media").fetchall()
    assert links == [(thread.id, sha)]


async def test_media_a_message_names_in_capitals_stays_while_the_message_needs_it(
    store: Store,
) -> None:
    sha = await store.store_media(b"\x89PNG...", "image/png")
    ref = MediaRef(kind="file_id", file_id=sha.upper(), sha256=sha.upper(), mime_type="image/png")
    state = AgentState(context=[Message(role="user", content=[ImageBlock(media=ref)])])
    user = await store.create_thread("uses it")
    await store.checkpointer.aput(Checkpoint(user.id, new_checkpoint_id(), None, 0, state), None)
    other = await store.create_thread("used it first")
    await store.link_media(other.id, sha)
    await store.delete_thread(other.id)
    blob = await store.get_media(sha)
    assert blob is not None and blob.data == b"\x89PNG..."


async def test_media_named_before_it_is_stored_is_kept_for_that_thread(store: Store) -> None:
    data = b"GIF89a..."
    sha = hashlib.sha256(data).hexdigest()
    ref = MediaRef(kind="file_id", file_id=sha, sha256=sha, mime_type="image/gif")
    state = AgentState(context=[Message(role="user", content=[ImageBlock(media=ref)])])
    early = await store.create_thread("named it first")
    await store.checkpointer.aput(Checkpoint(early.id, new_checkpoint_id(), None, 0, state), None)
    other = await store.create_thread("stored it")
    assert await store.store_media(data, "image/gif", thread_id=other.id) == sha
    await store.delete_thread(other.id)
    blob = await store.get_media(sha)
    assert blob is not None and blob.data == data
    await store.delete_thread(early.id)  # now nobody needs it
    assert await store.get_media(sha) is None
