"""Search over one huge message full of matches returns, with a useful snippet. How long it
takes depends on the machine: that figure is in ``make bench`` (bench_huge_search)."""

from __future__ import annotations

import asyncio

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import Store


async def test_search_in_a_20_mb_message_of_matches_returns_a_short_snippet(store: Store) -> None:
    huge = "alpha beta gamma delta " * (20 * 2**20 // 23)
    state = AgentState(context=[Message.text_message(t) for t in ("gamma rays", huge, "zeta")])
    await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
    await store.search("index it first")
    # FTS5's snippet() took 17.6 s for 1 MB of such text and never finished at 20 MB
    hits = await asyncio.wait_for(store.search("gamma"), 120)
    assert sorted(h.snippet for h in hits) == [
        "[gamma] rays",
        "alpha beta [gamma] delta alpha beta [gamma] delta alpha beta [gamma] delta alpha beta "
        "[gamma] delta alpha beta [gamma] delta…",
    ]


async def test_snippets_fold_case_and_diacritics_and_mark_the_prefix(store: Store) -> None:
    text = "Intro words. " * 20 + "Le Café était FERMÉ, cafétéria ouverte. " + "Outro. " * 30
    state = AgentState(context=[Message.text_message(text)])
    await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
    (hit,) = await store.search("cafe ferme", marks=("<", ">"))
    assert hit.snippet == (
        "…Intro words. Intro words. Intro words. Intro words. Le <Café> était <FERMÉ>, "
        "cafétéria ouverte. Outro. Outro. Outro. Outro. Outro. Outro. Outro. Outro. Outro.…"
    )
