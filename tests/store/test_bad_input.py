"""A database file Parley cannot use gives a clear StoreError and is left untouched."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.errors import ParleyError
from app.core.state import AgentState, Message
from app.store import (
    SCHEMA_VERSION,
    Store,
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreSchemaTooNewError,
)
from tests.store.helpers import append_messages


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _made_store(path: Path) -> None:
    async def fill() -> None:
        async with Store.open(path) as store:
            await append_messages(store.checkpointer, "t", ["keep me", "and me"])

    asyncio.run(fill())


def _assert_clear(err: StoreError, path: Path) -> None:
    assert isinstance(err, ParleyError)
    assert str(path) in str(err)
    assert err.path == path
    assert "--data-dir" in str(err) or "try again" in str(err)


def test_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    path.write_bytes(b"Dear diary, today I wrote a text file where the database goes.\n" * 50)
    before = _digest(path)
    with pytest.raises(StoreCorruptError) as caught:
        Store.open(path)
    _assert_clear(caught.value, path)
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parley.db"]


def test_a_damaged_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    _made_store(path)
    data = bytearray(path.read_bytes())
    data[100:4096] = os.urandom(3996)  # the schema page
    path.write_bytes(bytes(data))
    before = _digest(path)
    with pytest.raises(StoreCorruptError) as caught:
        Store.open(path)
    _assert_clear(caught.value, path)
    assert _digest(path) == before


def test_another_programs_sqlite_database(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE bookmarks (url TEXT)")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(StoreCorruptError, match="another program") as caught:
        Store.open(path)
    _assert_clear(caught.value, path)
    assert _digest(path) == before


def test_a_database_from_a_newer_parley(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    _made_store(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = _digest(path)
    with pytest.raises(StoreSchemaTooNewError, match="newer Parley") as caught:
        Store.open(path)
    _assert_clear(caught.value, path)
    assert _digest(path) == before


def test_an_empty_file_becomes_a_database(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    path.touch()
    with Store.open(path):
        pass
    assert path.read_bytes().startswith(b"SQLite format 3\x00")


def _unprivileged(fn: Callable[[], str]) -> str:
    """Run ``fn`` where file permissions apply: as ``nobody`` in a child when we are root."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            os.setgid(65534)
            os.setuid(65534)
            os.write(write, fn().encode())
        except BaseException as exc:
            os.write(write, f"child failed: {exc!r}".encode())
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        out = fh.read().decode()
    os.waitpid(pid, 0)
    return out


@contextlib.contextmanager
def _world_readable_dir() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="parley-ro-"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        for p in [base, *base.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        shutil.rmtree(base)


def _try_open(path: Path) -> Callable[[], str]:
    def attempt() -> str:
        try:
            with Store.open(path):
                return "opened"
        except StoreError as exc:
            return f"{type(exc).__name__}: {exc}"

    return attempt


def test_a_read_only_data_directory_for_a_new_database() -> None:
    with _world_readable_dir() as base:
        folder = base / "data"
        folder.mkdir()
        folder.chmod(0o555)
        result = _unprivileged(_try_open(folder / "parley.db"))
        assert result.startswith("StoreNotWritableError"), result
        assert str(folder) in result and "--data-dir" in result
        assert list(folder.iterdir()) == []


def test_a_read_only_data_directory_with_threads_in_it() -> None:
    with _world_readable_dir() as base:
        folder = base / "data"
        folder.mkdir()
        path = folder / "parley.db"
        _made_store(path)
        path.chmod(0o644)
        folder.chmod(0o555)
        before = _digest(path)
        result = _unprivileged(_try_open(path))
        assert result.startswith("StoreNotWritableError"), result
        assert str(path) in result
        assert _digest(path) == before


async def test_a_full_disk_keeps_what_was_saved(tmp_path: Path) -> None:
    path = tmp_path / "parley.db"
    big = "x" * 20_000
    saved: list[str] = []
    async with Store.open(path, max_size_bytes=500_000) as store:
        cp = store.checkpointer
        state, parent = AgentState(), None
        with pytest.raises(StoreFullError) as caught:
            for i in range(200):
                message = Message.text_message(f"{i} {big}")
                state = state.with_update(message)
                cid = new_checkpoint_id()
                changes = StateChanges(upserted=(message.message_id,)) if parent else None
                await cp.aput(Checkpoint("t", cid, parent, i, state), changes)
                saved.append(cid)
                parent = cid
        _assert_clear(caught.value, path)
        assert 3 < len(saved) < 200
        latest = await cp.aget("t", AgentState)
        assert latest is not None and latest.checkpoint_id == saved[-1]
        assert len(latest.state.context) == len(saved)
        await store.search("xxx")  # reading goes on
    with Store.open(path, max_size_bytes=500_000):  # still opens while full
        pass
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    async with Store.open(path) as store:  # with room again, work goes on
        infos = await store.checkpointer.alist("t")
        assert [i.checkpoint_id for i in infos] == saved[::-1]
        await append_messages(store.checkpointer, "t", ["more"], state=state, parent=saved[-1])


async def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "parley.db")
    store.close()
    store.close()
    with pytest.raises(StoreClosedError):
        await store.list_threads()
