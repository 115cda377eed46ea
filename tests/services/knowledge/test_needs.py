"""The knowledge service is handed what it needs when it is built, nothing afterwards: whose
folders a run searches comes from the run (its turn deps, or the delegate it works for, looked
up in the agents it was handed); the embedding choices and saving one come from what it was
handed, and without it there is nothing to choose."""

from __future__ import annotations

from pathlib import Path

from app.core.budget import Budget
from app.core.graph import RunConfig
from app.core.graph.context import RunContext, RunControl
from app.services.bus import EventBus
from app.services.knowledge import KnowledgeService
from app.services.knowledge.embedders import DownloadProgress, EmbeddingChoice
from app.services.turn import TurnDeps
from app.store import AgentRecord, Thread


class Agents:
    """Two stored agents, as the store would give them; no thread is known."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def find_agent(self, name: str) -> AgentRecord | None:
        self.asked.append(name)
        return {"Reader": AgentRecord(id="a-reader", name="Reader")}.get(name)

    async def get_thread(self, thread_id: str) -> Thread | None:
        return None


class Embeddings:
    """One model to choose; a choice is remembered."""

    def __init__(self) -> None:
        self.chosen: list[str] = []

    def choices(self) -> list[EmbeddingChoice]:
        return [EmbeddingChoice("bundled", "Bundled")]

    async def choose(self, spec: str, progress: DownloadProgress | None = None) -> None:
        self.chosen.append(spec)


def run(deps: object = None, agents: tuple[str, ...] = ()) -> RunContext:
    return RunContext(
        run_id="r",
        thread_id="t1",
        config=RunConfig(thread_id="t1", deps=deps),
        budget=Budget(),
        control=RunControl(),
        agents=agents,
    )


def folder(root: Path, name: str, text: str) -> str:
    (root / name).mkdir(parents=True)
    (root / name / f"{name}.md").write_text(f"# {name}\n\nThe lighthouse keeper {text}.\n")
    return str((root / name).resolve())


async def test_whose_folders_a_run_searches_comes_from_the_run(tmp_path: Path) -> None:
    agents = Agents()
    knowledge = await KnowledgeService.open(tmp_path / "data", EventBus(), agents=agents)
    try:
        docs = tmp_path / "docs"
        await knowledge.add_folder(folder(docs, "writers", "writes poems"), "a-writer")
        await knowledge.add_folder(folder(docs, "readers", "reads novels"), "a-reader")
        await knowledge.wait_idle()

        async def found(asker: RunContext | None) -> str:
            return " ".join(s["text"] for s in await knowledge.sources("keeper", 5, asker))

        writer_turn = run(TurnDeps("t1", agent_id="a-writer"))
        assert "poems" in await found(writer_turn) and "novels" not in await found(writer_turn)
        delegate = run(TurnDeps("t1", agent_id="a-writer"), agents=("Writer", "Reader"))
        assert "novels" in await found(delegate) and "poems" not in await found(delegate)
        assert agents.asked == ["Reader", "Reader"]
        # no run, or a run that says nothing of its thread's agent: only shared folders
        assert await found(None) == "" and await found(run()) == ""
    finally:
        await knowledge.aclose()


async def test_the_embedding_choices_are_what_the_service_was_handed(tmp_path: Path) -> None:
    embeddings = Embeddings()
    handed = await KnowledgeService.open(tmp_path / "a", EventBus(), embeddings=embeddings)
    bare = await KnowledgeService.open(tmp_path / "b", EventBus())
    try:
        assert [c.spec for c in handed.embedding_choices()] == ["bundled"]
        assert handed.choose_embedding is not None
        await handed.choose_embedding("bundled", None)
        assert embeddings.chosen == ["bundled"]
        assert bare.embedding_choices() == [] and bare.choose_embedding is None
    finally:
        await handed.aclose()
        await bare.aclose()
