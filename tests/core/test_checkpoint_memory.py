"""The checkpointer contract, run on the in-memory checkpointer."""

from __future__ import annotations

import pytest

from app.core.checkpoint import InMemoryCheckpointer
from tests.core.checkpoint_contract import CheckpointerContract


class TestInMemoryCheckpointer(CheckpointerContract):
    """Every contract test against :class:`InMemoryCheckpointer`."""

    @pytest.fixture
    def checkpointer(self) -> InMemoryCheckpointer:
        return InMemoryCheckpointer()
