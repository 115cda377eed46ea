"""Model providers: each adapter is a :class:`~app.core.models.protocol.ChatModel`.

- :class:`LlamaCppChatModel`: a GGUF file in process (the bundled SmolLM2 by default);
- :class:`OpenAIChatModel`: any OpenAI-compatible server;
- :class:`OllamaChatModel`: Ollama's native API, and :func:`list_ollama_models`;
- :class:`AnthropicChatModel`: Claude.

Each lives in its own module (``local``, ``openai_compat``, ``ollama``, ``anthropic_api``) so
importing one does not import every provider SDK; ``app.services.models.registry`` picks by spec.
"""

from app.providers._content import MediaLoader
from app.providers._retry import RetryPolicy

__all__ = ["MediaLoader", "RetryPolicy"]
