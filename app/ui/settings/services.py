"""``SettingsServices``: the services the settings pages call, handed to the settings dialog,
which gives each page only the ones it uses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.services.agents import AgentService
from app.services.bus import EventBus
from app.services.data.backups import BackupService
from app.services.knowledge.service import KnowledgeService
from app.services.local_server import ServerSwitch
from app.services.mcp.service import McpService
from app.services.memory import MemoryService
from app.services.network import NetworkLedger
from app.services.schedules.service import ScheduleService
from app.services.settings.preferences import Preferences
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.services.voice.service import VoiceService
from app.services.workspace_tools import WorkspaceTools

if TYPE_CHECKING:
    from app.ui.window_schedules import WindowSchedules

__all__ = ["SettingsServices"]


@dataclass(frozen=True, slots=True)
class SettingsServices:
    """What the pages of the settings dialog call, and nothing else."""

    preferences: Preferences
    """Connections, keys, rules, the audit log, limits, the theme and offline mode."""
    settings: SettingsStore
    """The current settings the tools page shows (granted folders, private network)."""
    tools: WorkspaceTools
    """Granting and revoking folders, the private-network switch."""
    mcp: McpService
    """The MCP servers page and its server dialog."""
    events: EventBus
    """The bus the MCP servers page follows for servers starting and stopping."""
    network: NetworkLedger
    """The network page's ledger and offline state."""
    backups: BackupService
    """The data page's backups."""
    knowledge: KnowledgeService
    """The knowledge page's folders, their indexing and its progress."""
    agent_name: Callable[[str], str]
    """The name of the agent with an id, for the knowledge page to say whose a folder is."""
    memory: MemoryService
    """The memory page's memories."""
    agents: AgentService
    """The agents the memory page names and offers per-agent switches for."""
    threads: ThreadService
    """The threads the memory page names as its memories' sources."""
    schedules: ScheduleService
    """The schedules page's schedules and their runs."""
    server: ServerSwitch
    """The server page's switch and keys."""
    voice: VoiceService
    """The voice page's installed voices."""
    window_schedules: WindowSchedules | None = None
    """The window's runner: who runs the schedules, the runs waiting for you."""
