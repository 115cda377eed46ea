"""Track what a step's updates changed, so the checkpointer writes only that."""

from __future__ import annotations

from typing import Any

from app.core.checkpoint.base import StateChanges
from app.core.state.agent_state import AgentState, UpdateSequence, normalise_update
from app.core.state.reducers import REMOVE_ALL_MESSAGES, MessageList, RemoveMessage


class ChangeTracker:
    """Collects the fields and message ids touched by the updates applied in one step."""

    def __init__(self) -> None:
        self.fields: set[str] = {"execution_meta"}
        self.upserted: dict[str | int, None] = {}
        self.removed: dict[str | int, None] = {}
        self.cleared = False

    def note(self, state: AgentState, update: Any) -> None:
        """Record what ``update`` (as a node returned it) touches."""
        if isinstance(update, UpdateSequence):
            for item in update:
                self.note(state, item)
            return
        values = normalise_update(state, update)
        for key, value in values.items():
            name = "context" if key == "messages" else key
            if name != "context":
                self.fields.add(name)
                continue
            items = value if isinstance(value, list | tuple | MessageList) else [value]
            for item in items:
                if isinstance(item, RemoveMessage):
                    if item.id == REMOVE_ALL_MESSAGES:
                        self.cleared = True
                        self.upserted.clear()
                        self.removed.clear()
                    else:
                        self.removed[item.id] = None
                        self.upserted.pop(item.id, None)
                else:
                    mid = getattr(item, "message_id", None)
                    if mid is None and isinstance(item, dict):
                        mid = item.get("message_id")
                    if mid is None:
                        self.fields.add("context")  # cannot tell which: write all messages
                    else:
                        self.upserted.pop(mid, None)
                        self.upserted[mid] = None

    def changes(self, state: AgentState) -> StateChanges | None:
        """Return the changes against the final ``state`` (``None``: write everything)."""
        if "context" in self.fields:
            return None
        context = state.context
        if not isinstance(context, MessageList):
            context = MessageList(context)
        present = [m for m in self.upserted if context.position(m) is not None]
        # an id removed and then added again is in both lists: it moved to the end
        gone = list(self.removed)
        return StateChanges(
            fields=frozenset(self.fields),
            upserted=tuple(present),
            removed=tuple(gone),
            cleared=self.cleared,
        )
