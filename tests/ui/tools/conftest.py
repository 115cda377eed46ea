"""Tools tests run on the window's qasync loop with the same strictness, and share a
workspace whose keyring is in memory."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.workspace import Workspace
from tests.services.memory_keyring import MemoryKeyring
from tests.ui.conftest import _fail_on_loop_errors, pytest_asyncio_loop_factories
from tests.ui.harness import Models

__all__ = ["_fail_on_loop_errors", "pytest_asyncio_loop_factories", "workspace"]


@pytest.fixture
async def workspace(tmp_path: Path) -> AsyncIterator[Workspace]:
    """A workspace in ``tmp_path``; its in-memory keyring is ``workspace.keyring``."""
    keyring = MemoryKeyring()
    ws = await Workspace.open(
        tmp_path,
        resolve_model=Models({}),
        secret_resolver=KeyringSecretResolver(backend=keyring),
    )
    ws.keyring = keyring  # type: ignore[attr-defined]
    yield ws
    await ws.aclose()
