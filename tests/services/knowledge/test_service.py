"""The knowledge service on a real folder: background indexing with progress, the folder
watched while it runs (edits, deletions, renames show up within seconds), Cancel, removal."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.services.bus import EventBus
from app.services.events import (
    KnowledgeChanged,
    KnowledgeProgress,
    ToolsChanged,
    WorkspaceEvent,
)
from app.services.knowledge import KnowledgeService
from tests.knowledge.corpus import make_corpus


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[tuple[KnowledgeService, list[WorkspaceEvent]]]:
    bus = EventBus()
    events: list[WorkspaceEvent] = []
    bus.subscribe(events.append)
    opened = await KnowledgeService.open(tmp_path / "data", bus)
    yield opened, events
    await opened.aclose()


async def _until(check: Callable[[], object], timeout: float = 15.0) -> None:
    """Poll ``check`` (a coroutine function or a plain one) until it is true."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return
        assert loop.time() < end, "the condition did not come true in time"
        await asyncio.sleep(0.05)


async def test_adding_a_folder_indexes_it_with_progress(
    service: tuple[KnowledgeService, list[WorkspaceEvent]], tmp_path: Path
) -> None:
    knowledge, events = service
    root = make_corpus(tmp_path / "docs")
    path = await knowledge.add_folder(root)
    await knowledge.wait_idle()
    progress = [e for e in events if isinstance(e, KnowledgeProgress)]
    reading = [e for e in progress if e.state == "indexing" and e.current]
    assert {e.current for e in reading} >= {"guide.pdf", "garden.md", "letters/report.docx"}
    assert all(e.files_total == reading[0].files_total for e in reading)
    assert reading[-1].bytes_done < reading[-1].bytes_total
    assert progress[-1].state == "done"
    assert KnowledgeChanged(path) in events
    assert ToolsChanged() in events  # search_knowledge is offered from now on
    (folder,) = await knowledge.folders()
    assert folder.path == path and folder.files == 5 and folder.last_sync is not None
    assert {s.rel for s in folder.skipped} >= {"broken.pdf", "locked.pdf", "pipe.txt"}
    best = (await knowledge.search("highest tide"))[0]
    assert (best.rel, best.page) == ("guide.pdf", 2)
    (source,) = await knowledge.sources("highest tide", 1)
    assert source["url"] == (root / "guide.pdf").resolve().as_uri() + "#page=2"
    assert source["title"] == "guide.pdf, page 2"


async def test_edits_deletions_and_renames_while_running(
    service: tuple[KnowledgeService, list[WorkspaceEvent]], tmp_path: Path
) -> None:
    knowledge, _ = service
    root = make_corpus(tmp_path / "docs", hostile=False)
    await knowledge.add_folder(root)
    await knowledge.wait_idle()
    knowledge.start()  # watching

    async def rels(query: str) -> list[str]:
        return [h.rel for h in await knowledge.search(query)]

    (root / "notes.txt").write_text("The aquarium feeds the penguins at three.\n")
    await _until(lambda: _has(rels("penguins"), "notes.txt"))
    assert await rels("zeppelin") == []
    (root / "billing.py").unlink()
    await _until(lambda: _lacks(rels("invoice"), "billing.py"))
    (root / "garden.md").rename(root / "allotment.md")
    await _until(lambda: _has(rels("slugs lettuce"), "allotment.md"))
    assert "garden.md" not in await rels("slugs lettuce")
    (root / "new.md").write_text("# Bees\n\nThe bees swarm in May.\n")
    await _until(lambda: _has(rels("bees swarm"), "new.md"))
    (root / "later").mkdir()  # a new folder is watched from its first sync on
    (root / "later" / "one.md").write_text("Owls hunt at dusk.\n")
    await _until(lambda: _has(rels("owls hunt"), "later/one.md"))
    (root / "later" / "two.md").write_text("Foxes nap at noon.\n")
    await _until(lambda: _has(rels("foxes nap"), "later/two.md"))


async def _has(found: object, rel: str) -> bool:
    return rel in await found  # type: ignore[misc]


async def _lacks(found: object, rel: str) -> bool:
    return rel not in await found  # type: ignore[misc]


async def test_cancel_stops_after_the_file_being_read(
    service: tuple[KnowledgeService, list[WorkspaceEvent]], tmp_path: Path
) -> None:
    knowledge, events = service
    root = tmp_path / "many"
    root.mkdir()
    for n in range(300):
        (root / f"note-{n:03}.md").write_text(f"# Note {n}\n\n" + "Some words here. " * 400)
    stopped = False

    def stop_early(event: WorkspaceEvent) -> None:
        nonlocal stopped
        if isinstance(event, KnowledgeProgress) and event.files_done >= 3 and not stopped:
            stopped = True
            knowledge.cancel()

    unsubscribe = knowledge._events.subscribe(stop_early)
    await knowledge.add_folder(root)
    await knowledge.wait_idle()
    unsubscribe()
    final = [e for e in events if isinstance(e, KnowledgeProgress)][-1]
    assert final.state == "cancelled"
    (folder,) = await knowledge.folders()
    assert 3 <= folder.files < 300
    assert folder.last_sync is None  # a cancelled sync is not a finished one
    await knowledge.reindex()
    await knowledge.wait_idle()
    (folder,) = await knowledge.folders()
    assert folder.files == 300 and folder.last_sync is not None


async def test_removing_a_folder_forgets_its_passages(
    service: tuple[KnowledgeService, list[WorkspaceEvent]], tmp_path: Path
) -> None:
    knowledge, _ = service
    root = make_corpus(tmp_path / "docs", hostile=False)
    await knowledge.add_folder(root)
    await knowledge.wait_idle()
    assert knowledge.tools()[0].name == "search_knowledge"
    assert await knowledge.remove_folder(root)
    assert await knowledge.folders() == []
    assert await knowledge.search("tide") == []
    assert knowledge.tools() == []
    assert (root / "guide.pdf").exists()


async def test_a_file_is_not_a_folder(
    service: tuple[KnowledgeService, list[WorkspaceEvent]], tmp_path: Path
) -> None:
    knowledge, _ = service
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(UserError, match="is not a folder"):
        await knowledge.add_folder(tmp_path / "file.txt")
    with pytest.raises(UserError, match="does not exist"):
        await knowledge.add_folder(tmp_path / "missing")
