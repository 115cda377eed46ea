"""Tools tests run on the window's qasync loop with the same strictness."""

from tests.ui.conftest import _fail_on_loop_errors, pytest_asyncio_loop_factories

__all__ = ["_fail_on_loop_errors", "pytest_asyncio_loop_factories"]
