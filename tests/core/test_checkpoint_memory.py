"""The checkpointer contract, run on the in-memory checkpointer."""

from __future__ import annotations

import pytest

from app.core.checkpoint import InMemoryCheckpointer
from tests.core.checkpoint_contract import CheckpointerContract
from tests.core.step_writes_contract import StepWritesContract


class TestInMemoryCheckpointer(CheckpointerContract, StepWritesContract):
    """Every contract test against :class:`InMemoryCheckpointer`."""

    @pytest.fixture
    def checkpointer(self) -> InMemoryCheckpointer:
        return InMemoryCheckpointer()
