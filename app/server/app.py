"""The server's ASGI application (Starlette): keys checked before anything runs, a cap on
the body, ``GET /v1/models`` (and one model by its id), ``POST /v1/chat/completions``
(OpenAI's), ``POST /v1/embeddings`` (OpenAI's) and ``POST /v1/messages`` (Anthropic's),
every refusal in the error shape of the API asked; the models behind a bounded queue, and
every request noted for the ledger."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.core.errors import ParleyError
from app.core.models.protocol import ChatModel
from app.core.models.streaming import merged
from app.core.state.message import Message, TokenUsages
from app.server import anthropic_messages, openai_chat
from app.server.asking import asking_key, key_room
from app.server.chat import ChatRequest
from app.server.embeddings import EmbeddingSource, embeddings_reply, read_embedding_request
from app.server.errors import ApiError, error_body
from app.server.images import check_images
from app.server.ledger import Inbound, NoteRequests, Record
from app.server.limits import KeyLimits, Reservation, reserve
from app.server.models import AGENT_PREFIX, ServedModel, ServedModels
from app.server.queue import WAITING, ModelQueue, Turn
from app.server.replies import generate
from app.server.streams import closing
from app.services.key_usage import until_midnight

__all__ = ["MAX_BODY", "WRITE_DEADLINE_S", "KeyCheck", "KeyLimits", "make_app"]

MAX_BODY = 16_000_000
"""The largest request body the server reads, in bytes."""

WRITE_DEADLINE_S = 15.0
"""How long a streaming client may take to read one piece of its reply before the reply is
ended as if it had gone (the model's turn goes to the next request)."""

KeyCheck = Callable[[str], str | None]
"""The name of the key a client sent, or ``None`` when it is no key of this server
(blocking: it may read the keyring)."""


_ADD_KEY = "make one with: parley serve keys add NAME"


@dataclass(frozen=True, slots=True)
class _Api:
    """One API the server speaks: how its requests are read and its replies written."""

    read: Callable[[bytes], ChatRequest]
    reply_stream: Callable[
        [ChatRequest, ChatModel, Callable[[TokenUsages], None], Callable[[], None]],
        AsyncIterator[bytes],
    ]
    reply_whole: Callable[[ChatRequest, Message], dict[str, Any]]


_OPENAI = _Api(openai_chat.read_chat_request, openai_chat.reply_stream, openai_chat.reply_whole)
_ANTHROPIC = _Api(
    anthropic_messages.read_messages_request,
    anthropic_messages.reply_stream,
    anthropic_messages.reply_whole,
)


def _key_sent(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("x-api-key", "").strip() or None


def _inbound(request: Request) -> Inbound | None:
    """The ledger's note of ``request`` (none when the application runs without one)."""
    found = request.scope.get("state", {}).get("inbound")
    return found if isinstance(found, Inbound) else None


def _note_model(request: Request, model: str) -> None:
    """Note the model ``request`` names for the ledger."""
    inbound = _inbound(request)
    if inbound is not None:
        inbound.model = model[:200]


def _no_model(status: int, wanted: str, then: str) -> ApiError:
    """The refusal of a model that is not here (``then`` says where to find one)."""
    return ApiError(
        status,
        f"There is no model {wanted[:200]!r} here; {then}",
        "invalid_request_error",
        "model_not_found",
        "model",
    )


def _anthropic(request: Request) -> bool:
    """Whether ``request`` speaks Anthropic's API (its errors take Anthropic's shape)."""
    return request.url.path.rstrip("/") == "/v1/messages"


def _refusal(
    request: Request,
    status: int,
    message: str,
    kind: str,
    code: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An error response in the shape of the API ``request`` speaks."""
    body = (
        anthropic_messages.anthropic_error_body(status, message)
        if _anthropic(request)
        else error_body(message, kind, code, param)
    )
    return JSONResponse(body, status_code=status, headers=headers)


async def _check_key(request: Request, keys: KeyCheck) -> str:
    """The name of the key the request carries; an :class:`ApiError` (401) otherwise."""
    sent = _key_sent(request)
    if sent is None:
        raise ApiError(
            401,
            f"No key was sent: send one as Authorization: Bearer KEY ({_ADD_KEY}).",
            "invalid_request_error",
            "missing_api_key",
        )
    name = await asyncio.to_thread(keys, sent)
    if name is None:
        raise ApiError(
            401,
            f"The key sent is not a key of this server, or it was removed; {_ADD_KEY}.",
            "invalid_request_error",
            "invalid_api_key",
        )
    inbound = _inbound(request)
    if inbound is not None:
        inbound.key = name
    return name


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        f"The request body is over {limit:,} bytes, the most this server reads; send less.",
        "invalid_request_error",
        "body_too_large",
    )


async def _body(request: Request, limit: int) -> bytes:
    """The request's body, or an :class:`ApiError` (413) once it passes ``limit`` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    body = bytearray()
    async for part in request.stream():
        body += part
        if len(body) > limit:
            raise _too_large(limit)
    return bytes(body)


async def _disconnected(request: Request) -> None:
    """Return once the client has gone (the body is read by then)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _used(request: Request, count: Callable[[int], None]) -> Callable[[TokenUsages], None]:
    """Where a reply's usage is noted for the ledger and its tokens handed to ``count``."""

    def used(usages: TokenUsages) -> None:
        inbound = _inbound(request)
        if inbound is not None:
            inbound.prompt_tokens = usages.prompt_tokens
            inbound.completion_tokens = usages.completion_tokens
        count(usages.prompt_tokens + usages.completion_tokens)

    return used


def _failed(request: Request) -> Callable[[], None]:
    """Where a model's failure in the middle of a streamed reply is noted for the ledger."""

    def failed() -> None:
        inbound = _inbound(request)
        if inbound is not None:
            inbound.failed = True

    return failed


async def _whole_reply(
    request: Request,
    model: ChatModel,
    chat: ChatRequest,
    turn: Turn,
    write: Callable[[ChatRequest, Message], dict[str, Any]],
    used: Callable[[TokenUsages], None],
) -> Response:
    """Wait for the model's turn and generate the whole reply (``write`` makes its body);
    leave the queue and stop generating when the client goes away first."""

    async def whole() -> Message:
        await turn.wait()
        async with closing(generate(chat, model)) as stream:
            chunks = [chunk async for chunk in stream]
        if not chunks:
            raise ParleyError("The model sent no reply at all. Try again.")
        return merged(chunks)

    generating = asyncio.ensure_future(whole())
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({generating, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not generating.done():
            generating.cancel()
        turn.leave()
    if not generating.done() or generating.cancelled():
        return Response(status_code=499)  # nobody is there to read it
    try:
        reply = generating.result()
    except ParleyError as exc:
        return _refusal(request, 500, str(exc), "server_error", "model_error")
    if reply.usages is not None:
        used(reply.usages)
    return JSONResponse(write(chat, reply))


class _Streamed(StreamingResponse):
    """A streamed reply that gives its place in the queue and the tokens it held of its
    key's day up however it ends (even when the client went away before its first byte).

    A client that takes longer than ``deadline`` seconds to take one piece (one reading a byte
    a second, once the socket's buffers are full) is treated as gone: the reply ends as it
    does when a client disconnects, so it cannot hold the model from the others."""

    def __init__(
        self, content: AsyncIterator[bytes], turn: Turn, held: Reservation, deadline: float
    ) -> None:
        super().__init__(content, media_type="text/event-stream")
        self.headers["cache-control"] = "no-cache"
        self._turn, self._held, self._deadline = turn, held, deadline

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def within_deadline(message: Any) -> None:
            try:  # not wait_for: it runs the send as a task of its own, and a cancel that
                # comes as the send ends is lost there (the client gone, the run went on)
                async with asyncio.timeout(self._deadline):
                    await send(message)
            except TimeoutError as exc:
                raise ConnectionAbortedError("the client took too long to read") from exc

        try:
            await super().__call__(scope, receive, within_deadline)
        finally:
            # a reply cut short at a send leaves its generator paused at a piece: close it,
            # so the model's stream ends now rather than when it is collected
            closing = getattr(self.body_iterator, "aclose", None)
            if closing is not None:
                with contextlib.suppress(Exception):
                    await closing()
            self._turn.leave()
            self._held.settle()


def make_app(
    models: ServedModels,
    keys: KeyCheck,
    *,
    max_body: int = MAX_BODY,
    waiting: int = WAITING,
    record: Record | None = None,
    offline: Callable[[], bool] = lambda: False,
    limits: KeyLimits | None = None,
    embeddings: EmbeddingSource | None = None,
    write_deadline: float = WRITE_DEADLINE_S,
) -> Starlette:
    """The application serving ``models`` to clients holding one of ``keys``: one
    generation at a time with ``waiting`` requests waiting, each request handed to
    ``record`` once answered, only this computer's clients while ``offline()``, and each
    key's tokens counted against its daily limit in ``limits``; embeddings by the model
    ``embeddings`` gives (none: ``/v1/embeddings`` says none is chosen); a streamed reply
    ends when its client takes more than ``write_deadline`` seconds to read one piece."""
    queue = ModelQueue(waiting)

    async def admitted(request: Request) -> str:
        """The key's name, once the client may ask at all (offline: this computer only)."""
        client = request.client
        if offline() and not (client is not None and _is_loopback(client.host)):
            raise ApiError(
                403,
                "Parley is offline, so it answers only clients on this computer; turn offline "
                "mode off (Settings > Network) to answer others.",
                "permission_error",
                "offline",
            )
        return await _check_key(request, keys)

    async def list_models(request: Request) -> Response:
        await admitted(request)
        data = [_model_object(m) for m in await models.listed()]
        return JSONResponse({"object": "list", "data": data})

    async def one_model(request: Request) -> Response:
        await admitted(request)
        wanted = request.path_params["model_id"]
        found = next((m for m in await models.listed() if m.id == wanted), None)
        if found is None:
            raise _no_model(404, wanted, "GET /v1/models lists them.")
        return JSONResponse(_model_object(found))

    async def served_model(request: Request, chat: ChatRequest) -> ChatModel:
        """The model ``chat`` names; an :class:`ApiError` (400) when there is none."""
        _note_model(request, chat.model)
        if not await models.knows(chat.model):
            raise _no_model(
                400, chat.model, "name one that GET /v1/models lists (parley is the default model)."
            )
        try:
            return await models.model(chat.model)
        except ParleyError as exc:
            raise ApiError(
                400, f"The model {chat.model} cannot be used: {exc}", "invalid_request_error",
                "model_not_available", "model",
            ) from None  # fmt: skip

    async def within_limit(request: Request) -> str:
        """The key's name, once it may ask (it has not used its day's tokens)."""
        key = await admitted(request)
        if limits is not None:
            refusal = await asyncio.to_thread(limits.refusal, key)
            if refusal is not None:
                wait = str(max(1, math.ceil(until_midnight(time.time()))))
                raise ApiError(
                    429, refusal, "rate_limit_error", "daily_token_limit",
                    headers={"retry-after": wait},
                )  # fmt: skip
        return key

    async def embed(request: Request) -> Response:
        key = await within_limit(request)
        model, texts, encoding = read_embedding_request(await _body(request, max_body))
        _note_model(request, model)
        count = (lambda tokens: None) if limits is None else partial(limits.spend, key)
        used = _used(request, count)
        return JSONResponse(await embeddings_reply(embeddings, model, texts, encoding, used))

    def answering(api: _Api) -> Callable[[Request], Awaitable[Response]]:
        """The handler of one API: ``api`` reads its requests (``read``) and writes its
        replies (``reply_stream``, ``reply_whole``)."""

        async def answer(request: Request) -> Response:
            key = await within_limit(request)
            asking_key.set(key)  # an agent's approval asked in the window names the key
            chat = api.read(await _body(request, max_body))
            model = await served_model(request, chat)
            _check_fits(chat, model)
            await check_images(chat, model)
            held = (
                reserve(None, key, chat)  # nothing to hold: no thread needed
                if limits is None
                else await asyncio.to_thread(reserve, limits, key, chat)
            )
            try:
                turn = queue.enter()
            except BaseException:
                held.settle()
                raise
            if limits is not None and model.info.provider == "agent":
                # an agent's run makes as many model calls as it needs: it holds what the key
                # has left, and stops before a step that could pass it
                key_room.set(await asyncio.to_thread(held.hold_rest))
            used = _used(request, held.count)
            if chat.stream:
                stream = api.reply_stream(chat, model, used, _failed(request))
                events = _events(stream, turn, _inbound(request))
                return _Streamed(events, turn, held, write_deadline)
            try:
                return await _whole_reply(request, model, chat, turn, api.reply_whole, used)
            finally:
                held.settle()

        return answer

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return _refusal(
            request, exc.status, exc.message, exc.kind, exc.code, exc.param, exc.headers
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return _refusal(
                request, 404, f"There is nothing at {request.url.path[:200]}; the API is "
                "under /v1.", "invalid_request_error", "not_found",
            )  # fmt: skip
        return _refusal(request, exc.status_code, str(exc.detail), "invalid_request_error", "http")

    async def client_gone(request: Request, exc: Exception) -> Response:
        return Response(status_code=499)

    async def failed(request: Request, exc: Exception) -> Response:
        return _refusal(
            request, 500, "The server failed to answer this request; its log says why. Try "
            "again.", "server_error", "internal_error",
        )  # fmt: skip

    handlers: dict[Any, Any] = {
        ApiError: refused,
        HTTPException: http_error,
        ClientDisconnect: client_gone,
        Exception: failed,
    }
    return Starlette(
        routes=[
            Route("/v1/models", list_models, methods=["GET"]),
            Route("/v1/models/{model_id:path}", one_model, methods=["GET"]),
            Route("/v1/chat/completions", answering(_OPENAI), methods=["POST"]),
            Route("/v1/messages", answering(_ANTHROPIC), methods=["POST"]),
            Route("/v1/embeddings", embed, methods=["POST"]),
        ],
        exception_handlers=handlers,
        middleware=[] if record is None else [Middleware(NoteRequests, record=record)],
    )


def _check_fits(chat: ChatRequest, model: ChatModel) -> None:
    """An :class:`ApiError` (400) when ``chat`` holds tools ``model`` cannot take: an agent
    runs with its own tools, and a model without tool calling takes none."""
    if not (chat.tools or chat.has_tool_turns):
        return
    if chat.model.startswith(AGENT_PREFIX):
        raise ApiError(
            400,
            f"{chat.model[:200]} runs with its own tools, so it takes none from the client; "
            "send the request without tools, or name a model (GET /v1/models lists them).",
            "invalid_request_error",
            "agent_tools",
            "tools",
        )
    if not model.info.supports_tools:
        raise ApiError(
            400,
            f"The model {chat.model[:200]} cannot call tools; send the request without them, "
            "or name a model that can.",
            "invalid_request_error",
            "tools_unsupported",
            "tools",
        )


def _model_object(model: ServedModel) -> dict[str, Any]:
    return {"id": model.id, "object": "model", "created": 0, "owned_by": model.owned_by}


async def _events(
    stream: AsyncIterator[bytes], turn: Turn, inbound: Inbound | None
) -> AsyncIterator[bytes]:
    """``stream`` once it is the request's turn, closed (and the model's generation with it)
    however it ends; a client gone before its end is noted."""
    finished = False
    try:
        await turn.wait()
        async with closing(stream):
            async for event in stream:
                yield event
        finished = True
    finally:
        turn.leave()
        if not finished and inbound is not None:
            inbound.gone = True


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
