"""``AgentState``: the state every graph runs on, and how updates are applied to it."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationInfo,
    model_validator,
)

from app.core.constants import START
from app.core.errors import UserError
from app.core.state.interrupt import Interrupt, PendingTask
from app.core.state.message import Message
from app.core.state.reducers import MessageList, Reducer, RemoveMessage, add_messages
from app.core.state.storable import INT64, check_storable, problem_in
from app.core.state.tool_result import ToolResult

__all__ = [
    "AgentState",
    "ExecMeta",
    "MessagesState",
    "UpdateSequence",
    "apply_update",
    "reducers_of",
    "shallow_copy",
    "update_in_place",
]

S = TypeVar("S", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)

_set_attr = object.__setattr__

RunStatus = Literal["idle", "running", "interrupted", "stopped", "completed", "error"]


class ExecMeta(BaseModel):
    """Runtime bookkeeping the engine keeps current: where the run is and how it stands."""

    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)

    current_node: str = START
    step: Annotated[int, Field(ge=INT64[0], le=INT64[1])] = 0
    status: RunStatus = "idle"
    stop_requested: bool = False
    error: str | None = None
    thread_id: str | None = None
    next_tasks: list[PendingTask] = Field(default_factory=list)
    """The nodes the run continues with (kept while paused or stopped)."""
    interrupts: list[Interrupt] = Field(default_factory=list)
    """Questions the run is waiting on."""
    resume: dict[str, JsonValue] = Field(default_factory=dict)
    """Answers already given to interrupts of the pending tasks, by interrupt id."""
    spent: dict[str, float] = Field(default_factory=dict)
    """What the current turn has spent (model calls, tool calls, tokens, cost), so a turn
    resumed after a pause keeps counting against the same budgets."""

    @model_validator(mode="after")
    def _storable(self, info: ValidationInfo) -> ExecMeta:
        check_storable(self, info)
        return self


class AgentState(BaseModel):
    """The default graph state: the conversation, its summary and execution metadata.

    Subclass it to add fields; annotate a field ``Annotated[T, reducer]`` to merge updates
    into it instead of replacing it.
    """

    # bytes fields are written as base64: the default (UTF-8) cannot write arbitrary bytes.
    model_config = ConfigDict(
        defer_build=True,
        extra="forbid",
        validate_default=False,
        ser_json_bytes="base64",
        val_json_bytes="base64",
        allow_inf_nan=False,
    )

    context: Annotated[MessageList, add_messages] = Field(
        default_factory=MessageList, validation_alias=AliasChoices("context", "messages")
    )
    context_summary: str | None = None
    execution_meta: ExecMeta = Field(default_factory=ExecMeta)

    @model_validator(mode="after")
    def _storable(self, info: ValidationInfo) -> Self:
        if info.mode != "json":  # the messages check themselves
            problem = problem_in([v for k, v in self.__dict__.items() if k != "context"])
            if problem is not None:
                raise ValueError(f"it holds {problem}")
        return self

    @property
    def messages(self) -> MessageList:
        """The conversation (the second seed's name for ``context``)."""
        return self.context

    def is_running(self) -> bool:
        """Whether a run is in progress."""
        return self.execution_meta.status == "running"

    def is_interrupted(self) -> bool:
        """Whether the run is paused on an interrupt."""
        return self.execution_meta.status == "interrupted"

    def is_stopped_requested(self) -> bool:
        """Whether a stop was requested mid-run."""
        return self.execution_meta.stop_requested

    def advance_step(self) -> None:
        """Count one more execution step."""
        self.execution_meta.step += 1

    def set_current_node(self, name: str) -> None:
        """Record the node that is running."""
        self.execution_meta.current_node = name

    def complete(self) -> None:
        """Mark the run completed."""
        self.execution_meta.status = "completed"

    def error(self, msg: str) -> None:
        """Mark the run failed with ``msg``."""
        self.execution_meta.status = "error"
        self.execution_meta.error = msg

    def with_update(self, update: Any) -> Self:
        """Return a copy of this state with ``update`` applied (see :func:`apply_update`)."""
        return apply_update(self, update)


class MessagesState(AgentState):
    """The second seed's state: ``messages`` (an alias of ``context``) under ``add_messages``."""


class UpdateSequence(tuple[Any, ...]):
    """Updates applied one after another as one node's result (the steps of a child graph),
    so each goes through the reducers as if the parent's own nodes had returned it."""


@cache
def reducers_of(state_cls: type[BaseModel]) -> dict[str, Reducer]:
    """Return the reducer of each field of ``state_cls`` declared with ``Annotated[T, fn]``."""
    found: dict[str, Reducer] = {}
    for name, info in state_cls.model_fields.items():
        for meta in info.metadata:
            if callable(meta) and not isinstance(meta, type):
                found[name] = meta
    return found


def normalise_update(state: BaseModel, update: Any) -> dict[str, Any]:
    """Turn any node return value into a dict of field updates."""
    if update is None:
        return {}
    if isinstance(update, dict):
        return update
    if isinstance(update, Message | RemoveMessage):
        return {"context": [update]}
    if isinstance(update, list | tuple | MessageList) and all(
        isinstance(u, Message | RemoveMessage) for u in update
    ):
        return {"context": list(update)}
    if isinstance(update, ToolResult):
        out = dict(update.state)
        if update.message is not None:
            text = update.message if isinstance(update.message, str) else None
            msg = (
                Message.text_message(text, role="assistant")
                if text is not None
                else Message(role="assistant", content=update.message)
            )
            out["context"] = [*out.get("context", []), msg]
        return out
    if isinstance(update, type(state)):
        return {name: getattr(update, name) for name in type(state).model_fields}
    raise UserError(
        f"a node returned {type(update).__name__}; return a Message, a list of messages, "
        f"a dict of changed fields, a ToolResult or None"
    )


def shallow_copy(model: M, update: dict[str, Any] | None = None) -> M:
    """Return ``model.model_copy(update=update)``: a new model with its own field values dict
    and fields-set, the values themselves shared, nothing validated.

    The engine copies states and their ``execution_meta`` on every step; this does it without
    pydantic's general handling of extra and private attributes (a model holding either is
    copied by ``model_copy`` itself)."""
    if (
        model.__pydantic_extra__ is not None
        or getattr(model, "__pydantic_private__", None) is not None
    ):
        return model.model_copy(update=update)
    cls = type(model)
    new = cls.__new__(cls)
    values = model.__dict__.copy()
    fields_set = model.__pydantic_fields_set__.copy()
    if update:
        values.update(update)
        fields_set.update(update)
    _set_attr(new, "__dict__", values)
    _set_attr(new, "__pydantic_extra__", None)
    _set_attr(new, "__pydantic_fields_set__", fields_set)
    _set_attr(new, "__pydantic_private__", None)
    return new


def apply_update(state: S, update: Any) -> S:
    """Apply one node's update to ``state`` and return the new state; ``state`` is unchanged.

    Only the keys present are touched: reducer fields merge, other fields are replaced and
    validated. A returned state object replaces every field.
    """
    if isinstance(update, UpdateSequence):
        for item in update:
            state = apply_update(state, item)
        return state
    values = normalise_update(state, update)
    if not values:
        return state
    new = shallow_copy(state)
    if isinstance(new, AgentState):
        # The convenience methods change execution_meta in place: give the new state its own.
        new.__dict__["execution_meta"] = shallow_copy(new.execution_meta)
    _apply_values(new, values, isinstance(update, type(state)))
    return new


def update_in_place(state: BaseModel, update: Any) -> None:
    """Apply one node's update to ``state`` itself, as :func:`apply_update` would to a copy.

    For a caller that owns ``state`` (a copy it made and nobody else has seen yet), so the
    updates of one step cost one copy, not one each. ``execution_meta`` is not copied."""
    if isinstance(update, UpdateSequence):
        for item in update:
            update_in_place(state, item)
        return
    values = normalise_update(state, update)
    if values:
        _apply_values(state, values, isinstance(update, type(state)))


def _apply_values(new: BaseModel, values: dict[str, Any], replace_all: bool) -> None:
    """Put ``values`` into ``new`` through its reducers (none when ``replace_all``)."""
    cls = type(new)
    fields = cls.model_fields
    reducers = {} if replace_all else reducers_of(cls)
    validator = cls.__pydantic_validator__
    for key, value in values.items():
        name = "context" if key == "messages" and "messages" not in fields else key
        if name not in fields:
            raise UserError(
                f"update has unknown field {key!r}; {cls.__name__} has: {', '.join(fields)}"
            )
        reducer = reducers.get(name)
        if reducer is None:
            validator.validate_assignment(new, name, value)
            continue
        merged = reducer(getattr(new, name), value)
        if getattr(reducer, "__parley_validates__", False):
            if isinstance(merged, MessageList) and fields[name].annotation is not MessageList:
                merged = list(merged)  # a field declared as a plain list gets one
            new.__dict__[name] = merged
            new.__pydantic_fields_set__.add(name)
        else:
            validator.validate_assignment(new, name, merged)
