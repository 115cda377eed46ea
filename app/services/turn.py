"""``TurnDeps``: what a turn's hooks and tools know of the turn, carried by the run itself.

:class:`~app.services.runs.RunService` puts them in each run's config
(:attr:`~app.core.graph.run_config.RunConfig.deps`); a hook or tool built once for every
thread reads them from the run context it is handed (``ctx.deps_as(TurnDeps)``), as a
delegate's child run does, since it shares its parent's config.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TurnDeps"]


@dataclass(frozen=True, slots=True)
class TurnDeps:
    """The turn's thread (``thread_id``), the id of the thread's agent (``agent_id``; the
    built-in one's for "Parley"), whether knowledge passages go before the question
    (``passages``: the thread's switch), and whether memories are used and kept
    (``memory``: off in an incognito turn)."""

    thread_id: str
    agent_id: str | None = None
    passages: bool = True
    memory: bool = True
