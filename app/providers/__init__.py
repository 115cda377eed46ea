"""Model providers: each adapter is a :class:`~app.core.models.protocol.ChatModel`.

- :class:`LlamaCppChatModel`: a GGUF file in process (the bundled SmolLM2 by default);
- :class:`OpenAIChatModel`: any OpenAI-compatible server;
- :class:`OllamaChatModel`: Ollama's native API, and :func:`list_ollama_models`;
- :class:`AnthropicChatModel`: Claude.

Adapters import provider SDKs lazily through these modules; import the one you need.
"""

from app.providers._retry import RetryPolicy

__all__ = ["RetryPolicy"]
