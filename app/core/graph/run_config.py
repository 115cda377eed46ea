"""``RunConfig``: the settings of one graph run, typed, and the one door a config dict enters by.

A run is configured with a :class:`RunConfig`. The spellings of the documents the engine follows
keep working: ``ainvoke``, ``astream`` and ``invoke`` (and the state readers) also take a plain
mapping, which :meth:`RunConfig.of` reads once, at that edge. Nothing inside the engine reads a
key from a dict.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from app.core.budget import LIMIT_NAMES, Budget, BudgetLimits
from app.core.errors import UserError

__all__ = ["ConfigInput", "RunConfig", "RunControl"]


class RunControl:
    """Lets another task (a Stop button) ask a run to stop after its current step."""

    def __init__(self) -> None:
        self._stop = asyncio.Event()

    def request_stop(self) -> None:
        """Ask the run to stop; streaming nodes end their message early."""
        self._stop.set()

    @property
    def stop_requested(self) -> bool:
        """Whether a stop was requested."""
        return self._stop.is_set()

    async def wait(self) -> None:
        """Wait until a stop is requested."""
        await self._stop.wait()


_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """What one run of a graph is told besides its input.

    ``thread_id`` is needed to checkpoint, resume and stop; ``checkpoint_id`` resumes from an
    older checkpoint; ``step_limit`` overrides the graph's own (``None``: the graph's);
    ``control`` lets another task stop the run; ``budget`` is spent by the run and its child
    graphs (``None``: a new one with ``limits``, or the parent run's); ``budget_pause`` makes a
    step that would go over a limit pause to ask instead of ending the turn;
    ``tool_permissions`` are the permissions the run grants its tools; ``values`` are the
    caller's own settings, which nodes and tools read (``runtime.config.values["locale"]``);
    ``deps`` are the caller's typed facts about the run (whose thread, which agent, what goes
    before the question), which the caller's own hooks and tools read with
    :meth:`~app.core.graph.context.RunContext.deps_as` (child runs share them).
    """

    thread_id: str | None = None
    checkpoint_id: str | None = None
    step_limit: int | None = None
    control: RunControl | None = None
    budget: Budget | None = None
    limits: BudgetLimits = field(default_factory=BudgetLimits)
    budget_pause: bool = False
    tool_permissions: frozenset[str] = frozenset()
    values: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    deps: object = None

    @classmethod
    def of(cls, config: ConfigInput) -> RunConfig:
        """Read a run config as a caller spelled it: a ``RunConfig``, ``None``, or a mapping.

        A mapping may use the documented keys (``thread_id``, ``checkpoint_id``,
        ``step_limit`` or its alias ``recursion_limit``, ``control``, ``budget``,
        ``budget_pause``, ``tool_permissions``, ``max_model_calls``, ``max_tool_calls``,
        ``max_tokens``, ``max_cost``, ``deps``), also nested under ``configurable``; every
        other key is one of the caller's ``values``. Raises :class:`UserError` saying which
        value is wrong.
        """
        if config is None:
            return cls()
        if isinstance(config, RunConfig):
            return config
        if not isinstance(config, Mapping):
            raise UserError(
                f"the run config must be a RunConfig or a dict, not {type(config).__name__}"
            )
        flat = dict(config)
        nested = flat.pop("configurable", None)
        if nested is not None:
            if not isinstance(nested, Mapping):
                raise UserError("config['configurable'] must be a dict of run settings")
            flat = {**nested, **flat}
        return cls._from_flat(flat)

    @classmethod
    def _from_flat(cls, flat: MutableMapping[str, Any]) -> RunConfig:
        thread_id = flat.pop("thread_id", None)
        checkpoint_id = flat.pop("checkpoint_id", None)
        steps = flat.pop("step_limit", None) or flat.pop("recursion_limit", None)
        flat.pop("recursion_limit", None)
        control = flat.pop("control", None)
        budget = flat.pop("budget", None)
        if control is not None and not isinstance(control, RunControl):
            raise UserError("config['control'] must be a RunControl")
        if budget is not None and not isinstance(budget, Budget):
            raise UserError("config['budget'] must be a Budget")
        limits = {k: flat.pop(k) for k in LIMIT_NAMES if k in flat}
        try:
            checked = BudgetLimits(**{k: v for k, v in limits.items() if v is not None})
        except ValidationError as exc:
            where = ".".join(str(p) for p in exc.errors()[0]["loc"])
            raise UserError(f"config[{where!r}] must be a number or None") from None
        return cls(
            thread_id=None if thread_id is None else str(thread_id),
            checkpoint_id=None if checkpoint_id is None else str(checkpoint_id),
            step_limit=_whole_number("step_limit", steps),
            control=control,
            budget=budget,
            limits=checked,
            budget_pause=bool(flat.pop("budget_pause", False)),
            tool_permissions=_names("tool_permissions", flat.pop("tool_permissions", None)),
            deps=flat.pop("deps", None),
            values=MappingProxyType(dict(flat)),
        )


ConfigInput = RunConfig | Mapping[str, Any] | None
"""What a caller may pass as a run's config."""


def _whole_number(name: str, value: Any) -> int | None:
    if value is None or value == 0:
        return None
    text = str(value).strip() if isinstance(value, int | str) else ""
    number = int(text) if text.isdigit() and not isinstance(value, bool) else 0
    if number < 1:
        raise UserError(f"config[{name!r}] must be a whole number of steps, not {value!r}")
    return number


def _names(name: str, value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise UserError(f"config[{name!r}] must be a list of permission names")
    return frozenset(str(v) for v in value)
