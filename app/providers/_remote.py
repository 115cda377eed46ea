"""``RemoteChatModel``: what the adapters that talk to a model server over HTTP share.

One client per event loop (a client cannot outlive the loop it was made on), closed by
``aclose`` or ``async with``; each reply streams through :func:`guarded_stream`, so retries,
error mapping and partial replies work the same for every server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any, Generic, Self, TypeVar

from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.models.streaming import CollectingChatModel
from app.core.state.message import Message, new_message_id
from app.providers._errors import Endpoint, Failure
from app.providers._retry import RetryPolicy
from app.providers._stream import guarded_stream

ClientT = TypeVar("ClientT")


class RemoteChatModel(CollectingChatModel, Generic[ClientT]):
    """Base of the HTTP chat models; subclasses build requests and read one attempt's stream."""

    info: ModelInfo
    _where: Endpoint

    def __init__(self, model: str, base_url: str, retry: RetryPolicy | None) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._client: ClientT | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @staticmethod
    def _classify(exc: BaseException) -> Failure | None:
        """Map a failure of this provider's client to a :class:`Failure` (None: not transport)."""
        raise NotImplementedError

    def _new_client(self) -> ClientT:
        """A new client for the running event loop, with the SDK's own retries off."""
        raise NotImplementedError

    async def _close_client(self, client: ClientT) -> None:
        """Close ``client`` and its connections."""
        raise NotImplementedError

    def _check_ready(self) -> None:
        """Raise a :class:`ModelError` if no request can be sent (a missing key, say)."""

    def _attempt(
        self, body: dict[str, Any], config: GenerationConfig, mid: str
    ) -> AsyncIterator[Message]:
        """Send ``body`` once and yield its chunks; raise :class:`MalformedChunk` on bad data."""
        raise NotImplementedError

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        config: GenerationConfig,
    ) -> dict[str, Any]:
        """The request body for one call."""
        raise NotImplementedError

    def _connection(self) -> ClientT:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = self._new_client()
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connections this model holds."""
        if self._client is not None:
            await self._close_client(self._client)
            self._client = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """Stream the reply as ``delta=True`` chunks; see the module docstring."""
        self._check_ready()
        cfg = config or GenerationConfig()
        body = self.request(messages, tools, cfg)
        mid = new_message_id()
        return guarded_stream(
            lambda: self._attempt(body, cfg, mid),
            message_id=mid,
            classify=self._classify,
            where=self._where,
            policy=self.retry,
        )
