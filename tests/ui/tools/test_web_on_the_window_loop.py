"""The web tools on the window's event loop (qasync): a page cut at the size limit closes its
connection in the call's own task, so nothing is left for the garbage collector to close
(which it cannot do on this loop: Python reports it as an exception that was ignored)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.tools.web import MAX_FETCH_BYTES, fetch_tool
from tests.tools.helpers import ok
from tests.tools.web_server import Served, serve


@pytest.fixture
def server() -> Iterator[Served]:
    with serve("127.0.0.1") as served:
        yield served


async def test_a_page_cut_at_the_limit_closes_its_connection_in_its_own_task(
    server: Served,
) -> None:
    endless = await ok(fetch_tool(True), url=f"{server.url}/endless")
    assert endless.endswith(
        f"x\n[... the response was cut after {MAX_FETCH_BYTES} bytes]\n"
        "[... the text was cut at 40000 characters]"
    )
