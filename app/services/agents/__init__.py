"""Agents a person defines, reuses and shares: the :class:`Agent` record, checking it
(:mod:`.validation`), its file (:mod:`.files`) and :class:`AgentService`."""

from app.services.agents.file_limits import AgentFileError
from app.services.agents.model import BUILTIN_AGENT_ID, LIMIT_NAMES, MAX_STARTERS, Agent
from app.services.agents.service import AgentImport, AgentService
from app.store import StoredArgumentRule

__all__ = [
    "BUILTIN_AGENT_ID",
    "LIMIT_NAMES",
    "MAX_STARTERS",
    "Agent",
    "AgentFileError",
    "AgentImport",
    "AgentService",
    "StoredArgumentRule",
]
