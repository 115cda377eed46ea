"""The checkpointer contract, run on the SQLite checkpointer (a real file per test)."""

from __future__ import annotations

import pytest

from app.store import SqliteCheckpointer, Store
from tests.core.checkpoint_contract import CheckpointerContract
from tests.core.step_writes_contract import StepWritesContract


class TestSqliteCheckpointer(CheckpointerContract, StepWritesContract):
    """Every contract test against :class:`SqliteCheckpointer`."""

    @pytest.fixture
    def checkpointer(self, store: Store) -> SqliteCheckpointer:
        return store.checkpointer
