"""``Agent``: what a person defines once and reuses — name, instructions, model, tools,
delegates, limits and starter prompts — as the services and the window pass it around."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.core.agent.delegation import tool_name_for
from app.core.budget import BudgetLimits
from app.store import BUILTIN_AGENT_ID, AgentRecord, agent_name_key

__all__ = [
    "BUILTIN_AGENT_ID",
    "LIMIT_NAMES",
    "MAX_STARTERS",
    "Agent",
    "agent_key",
    "agent_slug",
]

MAX_STARTERS = 3
"""How many starter prompts an agent shows in an empty thread."""

LIMIT_NAMES = ("max_model_calls", "max_tool_calls", "max_tokens", "max_cost")
"""The limits an agent can set on a turn, as the file and the terminal name them."""


def agent_key(name: str) -> str:
    """The form two agent names are compared in (case and width folded)."""
    return agent_name_key(name)


def agent_slug(name: str) -> str:
    """The agent's name as a tool name part (``ask_SLUG`` is the tool that asks it; see
    :func:`~app.core.agent.delegation.tool_name_for`)."""
    return tool_name_for(name).removeprefix("ask_")


class Agent(BaseModel):
    """One agent. ``model`` ``None`` runs on the thread's model; an empty ``id`` is an agent
    not saved yet. ``builtin`` marks "Parley", the plain chat every thread starts with."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    id: str = ""
    name: str
    description: str = ""
    instructions: str = ""
    model: str | None = None
    tools: tuple[str, ...] = ()
    delegates: tuple[str, ...] = ()
    limits: BudgetLimits = Field(default_factory=BudgetLimits)
    starters: tuple[str, ...] = ()
    builtin: bool = False

    @property
    def key(self) -> str:
        """The name as names are compared."""
        return agent_key(self.name)

    @property
    def slug(self) -> str:
        """See :func:`agent_slug`."""
        return agent_slug(self.name)

    @classmethod
    def of_record(cls, record: AgentRecord) -> Agent:
        """The agent a store record holds (limits it does not know are left out)."""
        limits = {k: v for k, v in record.limits if k in LIMIT_NAMES}
        for name in ("max_model_calls", "max_tool_calls", "max_tokens"):
            if name in limits:
                limits[name] = int(limits[name])
        return cls(
            id=record.id,
            name=record.name,
            description=record.description,
            instructions=record.instructions,
            model=record.model,
            tools=record.tools,
            delegates=record.delegates,
            limits=BudgetLimits.model_validate(limits),
            starters=record.starters,
            builtin=record.builtin,
        )

    def record(self) -> AgentRecord:
        """The store record of this agent."""
        return AgentRecord(
            id=self.id,
            name=self.name,
            description=self.description,
            instructions=self.instructions,
            model=self.model,
            tools=self.tools,
            delegates=self.delegates,
            limits=tuple(self.limits.model_dump(exclude_none=True).items()),
            starters=self.starters,
            builtin=self.builtin,
        )
