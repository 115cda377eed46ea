"""``search_threads`` over a real store's full-text index."""

from __future__ import annotations

from pathlib import Path

from app.store import Store
from app.tools.threads import search_threads_tool
from tests.store.helpers import append_messages
from tests.tools.helpers import ok, refused


async def test_it_finds_the_users_own_messages(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        trip = await store.create_thread("Trip to Lisbon")
        await append_messages(
            store.checkpointer, trip.id, ["Which tram goes to Belém?", "Tram 15 goes to Belém."]
        )
        other = await store.create_thread("Groceries")
        await append_messages(store.checkpointer, other.id, ["milk and eggs"])
        tool = search_threads_tool(lambda text, limit: store.search(text, limit=limit))

        found = (await ok(tool, text="tram belém")).splitlines()
        assert found[0] == "2 messages match 'tram belém':"
        assert set(found[1:]) == {
            f"- in 'Trip to Lisbon' (thread {trip.id}), user: Which [tram] goes to [Belém]?",
            f"- in 'Trip to Lisbon' (thread {trip.id}), assistant: [Tram] 15 goes to [Belém].",
        }
        one = await ok(tool, text="tram", limit=1)
        assert len(one.splitlines()) == 2
        assert await ok(tool, text="submarine") == "No earlier message contains 'submarine'."
        assert "the search text is empty" in await refused(tool, text="  ")
        assert tool.permissions == ("threads:read",)
