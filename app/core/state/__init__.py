"""Typed messages, content blocks and state: what flows through every graph."""

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
from app.core.state.reducers import REMOVE_ALL_MESSAGES, MessageList, RemoveMessage, add_messages
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
