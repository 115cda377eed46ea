"""What the server serves: the default model as ``parley``, the chat models the model
picker lists by their specs, and the agents as ``agent:NAME`` (each run as a model, see
:mod:`app.server.agents`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from app.core.models.protocol import ChatModel
from app.knowledge import Embedder
from app.services.models.downloads import DOWNLOAD_PREFIX
from app.services.workspace import Workspace

if TYPE_CHECKING:
    from app.server.agents import WindowAsk

__all__ = ["AGENT_PREFIX", "DEFAULT_ID", "ServedModel", "ServedModels", "WorkspaceModels"]

DEFAULT_ID = "parley"
"""The id under which the default model is served."""

AGENT_PREFIX = "agent:"
"""How an agent's id starts."""


@dataclass(frozen=True, slots=True)
class ServedModel:
    """One entry of ``GET /v1/models``: its id and who owns it (``parley``, the provider of
    a model, or ``agent``)."""

    id: str
    owned_by: str


class ServedModels(Protocol):
    """What the server asks of the models it serves."""

    async def listed(self) -> list[ServedModel]:
        """Every model and agent a client may name, the default model first."""
        ...

    async def knows(self, model_id: str) -> bool:
        """Whether ``model_id`` is one :meth:`listed` gives."""
        ...

    async def model(self, model_id: str) -> ChatModel:
        """The chat model ``model_id`` names (one :meth:`listed` gave); builds it on first
        use and raises :class:`~app.core.errors.ParleyError` when it cannot be used."""
        ...


class WorkspaceModels:
    """:class:`ServedModels` over a workspace's model service, settings and agents."""

    def __init__(self, workspace: Workspace, ask: WindowAsk | None = None) -> None:
        self._workspace = workspace
        self._ask = ask
        """The window's approval dialog, for agents' calls (``None``: no window; denied)."""
        self._models = workspace.models
        self._settings = workspace.settings
        self._agents = workspace.agents

    def meaning(self) -> tuple[Embedder, str] | None:
        """The embedding model chosen (the knowledge folders' search by meaning) and its
        setting, served at ``/v1/embeddings``; ``None`` when none is."""
        return self._workspace.knowledge.meaning()

    def default_spec(self) -> str:
        """The spec of the model served as ``parley``."""
        return self._settings.current.default_model

    async def listed(self) -> list[ServedModel]:
        """``parley``, then each available chat model of the picker by its spec (not the
        catalogue's models to download), then each agent a person defined as ``agent:NAME``."""
        default = self.default_spec()
        served = [ServedModel(DEFAULT_ID, "parley"), ServedModel(default, _owner(default))]
        for choice in await self._models.choices():
            # a catalogue model to download (download:NAME) is no model to answer with yet
            offered = choice.available and not choice.spec.startswith(DOWNLOAD_PREFIX)
            if offered and choice.spec not in {s.id for s in served}:
                served.append(ServedModel(choice.spec, _owner(choice.spec)))
        for agent in await self._agents.list():
            if not agent.builtin:
                served.append(ServedModel(AGENT_PREFIX + agent.name, "agent"))
        return served

    async def knows(self, model_id: str) -> bool:
        """Whether ``model_id`` is listed: the default model is known without listing the
        others (which asks Ollama for its models)."""
        if model_id in (DEFAULT_ID, self.default_spec()):
            return True
        return model_id in {m.id for m in await self.listed()}

    async def model(self, model_id: str) -> ChatModel:
        """The chat model ``model_id`` names; ``parley`` is the default model, and
        ``agent:NAME`` the agent of that name, served as a model."""
        if model_id.startswith(AGENT_PREFIX):
            from app.server.agents import AgentModel

            return AgentModel(
                self._workspace, await self._agents.get(model_id[len(AGENT_PREFIX) :]), self._ask
            )
        return await self._models.model(self.default_spec() if model_id == DEFAULT_ID else model_id)


def _owner(spec: str) -> str:
    provider = spec.partition(":")[0]
    return "llama.cpp" if provider in ("local", "gguf") else provider
