"""Full snapshots (import, fork, a thread's first save) cost work in proportion to the
thread's length. Work is counted in SQLite virtual-machine steps, which a busy machine does
not change."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlite_utils

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import _export, _threads
from app.store._checkpoints import put
from app.store._db import close_database, open_database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    """The store's own connection to a fresh database file."""
    opened = open_database(tmp_path / "parley.db")
    yield opened
    close_database(opened)


def _steps(db: sqlite_utils.Database, work: Callable[[], object]) -> int:
    """How many SQLite VM steps (in thousands) ``work`` took."""
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    db.conn.set_progress_handler(tick, 1000)
    try:
        work()
    finally:
        db.conn.set_progress_handler(None, 0)
    return count


def _thread(db: sqlite_utils.Database, thread_id: str, n: int) -> None:
    state = AgentState(
        context=[Message.text_message(f"message {i} about lorem ipsum") for i in range(n)]
    )
    put(db, Checkpoint(thread_id, new_checkpoint_id(), None, 0, state), None)


@pytest.mark.parametrize("what", ["first save", "import", "fork"])
def test_a_snapshot_of_four_times_the_messages_costs_about_four_times_the_work(
    db: sqlite_utils.Database, what: str
) -> None:
    costs = []
    for n in (1_000, 4_000):
        if what == "first save":
            costs.append(_steps(db, lambda n=n: _thread(db, f"first-{n}", n)))
            continue
        _thread(db, f"t{n}", n)
        if what == "import":
            doc = _export.export_json(db, f"t{n}", AgentState)
            costs.append(_steps(db, lambda doc=doc: _export.import_json(db, doc, AgentState)))
        else:
            costs.append(
                _steps(db, lambda n=n: _threads.fork(db, f"t{n}", AgentState, None, None, None))
            )
    assert costs[1] / costs[0] < 5, f"{what}: {costs[0]}k then {costs[1]}k VM steps"
