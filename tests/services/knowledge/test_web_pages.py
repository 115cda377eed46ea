"""A knowledge folder of saved web pages, synced through the real service and its reader
child: each passage of a page carries the heading it is under, and a page that holds no
text is listed with the reason."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.services.bus import EventBus
from app.services.knowledge import KnowledgeService


@pytest.fixture
async def knowledge(tmp_path: Path) -> AsyncIterator[KnowledgeService]:
    opened = await KnowledgeService.open(tmp_path / "data", EventBus())
    yield opened
    await opened.aclose()


SAVED_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Heron field guide</title>
<script src="https://example.invalid/analytics.js"></script>
<script>var pelican = "never indexed";</script></head>
<body><h1>Heron field guide</h1>
<p>Herons are long-legged wading birds.</p>
<h2>Nesting</h2>
<p>The grey heron nests in colonies called <a href="heronry.html">heronries</a>,
high in tall trees, from February onwards.</p>
<h3>Eggs</h3>
<p>A clutch holds three to five pale blue eggs, incubated for about 25 days.</p>
</body></html>
"""


async def test_a_web_page_is_searched_by_the_section_it_is_under(
    knowledge: KnowledgeService, tmp_path: Path
) -> None:
    root = tmp_path / "pages"
    (root / "birds").mkdir(parents=True)
    (root / "birds" / "heron.html").write_text(SAVED_PAGE, encoding="utf-8")
    (root / "old.htm").write_bytes(
        b'<meta charset="windows-1252"><h1>Caf\xe9 menu</h1><p>Cr\xe8me br\xfbl\xe9e daily.</p>'
    )
    (root / "app.html").write_text("<script>render()</script><div id=app></div>")
    await knowledge.add_folder(root)
    await knowledge.wait_idle()

    eggs = (await knowledge.search("pale blue eggs clutch"))[0]
    assert (eggs.rel, eggs.heading) == ("birds/heron.html", "Heron field guide › Nesting › Eggs")
    assert "three to five pale blue eggs" in eggs.text
    nests = (await knowledge.search("heronries colonies"))[0]
    assert (nests.rel, nests.heading) == ("birds/heron.html", "Heron field guide › Nesting")
    assert "called heronries, high in tall trees" in " ".join(nests.text.split())
    cafe = (await knowledge.search("crème brûlée"))[0]
    assert (cafe.rel, cafe.heading) == ("old.htm", "Café menu")
    assert await knowledge.search("pelican") == []
    assert await knowledge.search("analytics") == []

    (folder,) = await knowledge.folders()
    assert folder.files == 2
    (skipped,) = folder.skipped
    assert skipped.rel == "app.html"
    assert "only markup, or a page its scripts would fill in" in skipped.reason
