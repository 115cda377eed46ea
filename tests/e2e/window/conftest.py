"""The window journeys run on the same qasync loop, with the same strictness, as the UI tests."""

from tests.ui.conftest import (
    _collect_on_the_main_thread,
    _fail_on_loop_errors,
    _file_dialogs_start_afresh,
    pytest_asyncio_loop_factories,
)

__all__ = [
    "_collect_on_the_main_thread",
    "_fail_on_loop_errors",
    "_file_dialogs_start_afresh",
    "pytest_asyncio_loop_factories",
]
