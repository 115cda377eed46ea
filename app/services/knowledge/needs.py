"""What :class:`~app.services.knowledge.service.KnowledgeService` is handed when it is built:
who the agents are (:class:`AgentRecords`, which the store answers; :func:`asking_agent` says
whose folders a run searches) and the embedding models to choose from
(:class:`EmbeddingModels`, answered by :class:`EmbeddingSetting` over the model downloads and
the settings)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from app.core.graph.context import RunContext
from app.services.knowledge.embedders import (
    DOWNLOAD,
    DownloadProgress,
    EmbeddingChoice,
    embedding_choices,
)
from app.services.turn import TurnDeps
from app.store import AgentRecord, Thread

if TYPE_CHECKING:
    from app.services.models.downloads import ModelDownloads
    from app.services.settings.store import SettingsStore

__all__ = ["AgentRecords", "EmbeddingModels", "EmbeddingSetting", "asking_agent"]


class AgentRecords(Protocol):
    """The agents as the knowledge folders need them: a delegate's record by its name (whose
    folders it searches), a thread's (whose agent's folders its turns search)."""

    async def find_agent(self, name: str) -> AgentRecord | None:
        """The agent called ``name``, or ``None``."""
        ...

    async def get_thread(self, thread_id: str) -> Thread | None:
        """The thread ``thread_id``, or ``None``."""
        ...


async def asking_agent(asker: RunContext | None, agents: AgentRecords | None) -> str | None:
    """The id of the agent whose folders the run ``asker`` searches (``None``: only the
    folders of no agent): the delegate it works for, else its thread's agent, as its
    :class:`~app.services.turn.TurnDeps` say (a run without them: as the thread says)."""
    if asker is None:
        return None
    if asker.agent:  # a delegate's run: the delegate's folders
        record = await agents.find_agent(asker.agent) if agents is not None else None
        return record.id if record else None
    deps = asker.deps_as(TurnDeps)
    if deps is not None:
        return deps.agent_id
    thread = await agents.get_thread(asker.thread_id) if agents and asker.thread_id else None
    return thread.agent_id if thread else None


class EmbeddingModels(Protocol):
    """The embedding models to choose from, and saving the choice."""

    def choices(self) -> list[EmbeddingChoice]:
        """The embedding models to choose from (blocking: it reads the models folder)."""
        ...

    def choose(self, spec: str, progress: DownloadProgress | None = None) -> Awaitable[None]:
        """Save ``spec`` as the embedding model setting, downloading a ``download:NAME`` first
        with its progress told."""
        ...


class EmbeddingSetting:
    """:class:`EmbeddingModels` over the model downloads and the settings: the downloaded and
    added models, and the ``knowledge_embedding`` setting."""

    def __init__(self, downloads: ModelDownloads, settings: SettingsStore) -> None:
        self._downloads = downloads
        self._settings = settings

    def choices(self) -> list[EmbeddingChoice]:
        """The bundled model, the downloaded ones and the GGUF files the user added."""
        return embedding_choices(self._downloads.library, self._settings.current.gguf_files)

    async def choose(self, spec: str, progress: DownloadProgress | None = None) -> None:
        """Save ``spec`` (downloading the catalogue's ``download:NAME`` first)."""
        if spec.startswith(DOWNLOAD):
            told = None if progress is None else _bytes_told(progress)
            spec = (await self._downloads.download(spec, told)).spec
        await self._settings.update(knowledge_embedding=spec)


def _bytes_told(progress: DownloadProgress) -> Callable[[Any], None]:
    """A download's progress as ``progress`` takes it: bytes so far and the size."""
    return lambda p: progress(p.done, p.total)
