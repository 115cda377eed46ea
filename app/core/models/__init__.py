"""The model protocol and the scripted model that ships with the engine."""

from app.core.models.protocol import ChatModel, GenerationConfig, ModelInfo, ModelPrice, ToolSpec
from app.core.models.scripted import ScriptedCall, ScriptedChatModel, ScriptedTurn

__all__ = [
    "ChatModel",
    "GenerationConfig",
    "ModelInfo",
    "ModelPrice",
    "ScriptedCall",
    "ScriptedChatModel",
    "ScriptedTurn",
    "ToolSpec",
]
