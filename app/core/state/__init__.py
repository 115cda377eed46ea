"""Typed messages, content blocks and state: what flows through every graph.

The names load with their first use (see :mod:`app.core.lazy_names`): a process that needs
the content blocks alone does not load the agent state and its reducers with them."""

from typing import TYPE_CHECKING

from app.core.lazy_names import lazy_names

if TYPE_CHECKING:
    from app.core.state.agent_state import AgentState, ExecMeta, MessagesState, apply_update
    from app.core.state.aliases import (
        AIMessage,
        AIMessageChunk,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from app.core.state.chunks import ChunkMerge, MarkedMerge, merge_chunk
    from app.core.state.interrupt import Interrupt, PendingTask
    from app.core.state.message import Message, TokenUsages
    from app.core.state.message_block import (
        AnnotationBlock,
        AnnotationRef,
        AudioBlock,
        ContentBlock,
        DataBlock,
        DocumentBlock,
        ErrorBlock,
        ImageBlock,
        MediaRef,
        ReasoningBlock,
        TextBlock,
        ToolCallBlock,
        ToolResultBlock,
        VideoBlock,
    )
    from app.core.state.message_log import LogChange, MessageLog
    from app.core.state.message_marks import EndReason, NoteKind, ToolErrorKind
    from app.core.state.reducers import (
        REMOVE_ALL_MESSAGES,
        MessageList,
        RemoveMessage,
        add_messages,
    )
    from app.core.state.tool_result import ToolResult

__all__ = [
    "REMOVE_ALL_MESSAGES",
    "AIMessage",
    "AIMessageChunk",
    "AgentState",
    "AnnotationBlock",
    "AnnotationRef",
    "AudioBlock",
    "ChunkMerge",
    "ContentBlock",
    "DataBlock",
    "DocumentBlock",
    "EndReason",
    "ErrorBlock",
    "ExecMeta",
    "HumanMessage",
    "ImageBlock",
    "Interrupt",
    "LogChange",
    "MarkedMerge",
    "MediaRef",
    "Message",
    "MessageList",
    "MessageLog",
    "MessagesState",
    "NoteKind",
    "PendingTask",
    "ReasoningBlock",
    "RemoveMessage",
    "SystemMessage",
    "TextBlock",
    "TokenUsages",
    "ToolCallBlock",
    "ToolErrorKind",
    "ToolMessage",
    "ToolResult",
    "ToolResultBlock",
    "VideoBlock",
    "add_messages",
    "apply_update",
    "merge_chunk",
]

__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        "app.core.state.agent_state": (
            "AgentState",
            "ExecMeta",
            "MessagesState",
            "apply_update",
        ),
        "app.core.state.aliases": (
            "AIMessage",
            "AIMessageChunk",
            "HumanMessage",
            "SystemMessage",
            "ToolMessage",
        ),
        "app.core.state.chunks": (
            "ChunkMerge",
            "MarkedMerge",
            "merge_chunk",
        ),
        "app.core.state.interrupt": (
            "Interrupt",
            "PendingTask",
        ),
        "app.core.state.message": (
            "Message",
            "TokenUsages",
        ),
        "app.core.state.message_block": (
            "AnnotationBlock",
            "AnnotationRef",
            "AudioBlock",
            "ContentBlock",
            "DataBlock",
            "DocumentBlock",
            "ErrorBlock",
            "ImageBlock",
            "MediaRef",
            "ReasoningBlock",
            "TextBlock",
            "ToolCallBlock",
            "ToolResultBlock",
            "VideoBlock",
        ),
        "app.core.state.message_log": (
            "LogChange",
            "MessageLog",
        ),
        "app.core.state.message_marks": (
            "EndReason",
            "NoteKind",
            "ToolErrorKind",
        ),
        "app.core.state.reducers": (
            "REMOVE_ALL_MESSAGES",
            "MessageList",
            "RemoveMessage",
            "add_messages",
        ),
        "app.core.state.tool_result": ("ToolResult",),
    },
)
