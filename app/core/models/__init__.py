"""The model protocol and the scripted model that ships with the engine."""

from app.core.models.protocol import ChatModel, GenerationConfig, ModelInfo, ModelPrice, ToolSpec
from app.core.models.scripted import ScriptedCall, ScriptedChatModel, ScriptedTurn
from app.core.models.streaming import CollectingChatModel, collect, merged

__all__ = [
    "ChatModel",
    "CollectingChatModel",
    "GenerationConfig",
    "ModelInfo",
    "ModelPrice",
    "ScriptedCall",
    "ScriptedChatModel",
    "ScriptedTurn",
    "ToolSpec",
    "collect",
    "merged",
]
