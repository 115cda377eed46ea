"""The server's ASGI application (Starlette): keys checked before anything runs, a cap on
the body, ``GET /v1/models`` (and one model by its id) and ``POST /v1/chat/completions``,
every refusal in OpenAI's error shape."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from app.core.errors import ParleyError
from app.core.models.protocol import ChatModel
from app.core.models.streaming import merged
from app.core.state.message import Message
from app.server.errors import ApiError, error_response
from app.server.models import AGENT_PREFIX, ServedModel, ServedModels
from app.server.openai_chat import ChatRequest, read_chat_request, reply_stream, reply_whole
from app.server.streams import closing

__all__ = ["MAX_BODY", "KeyCheck", "make_app"]

MAX_BODY = 1_000_000
"""The largest request body the server reads, in bytes."""

KeyCheck = Callable[[str], str | None]
"""The name of the key a client sent, or ``None`` when it is no key of this server
(blocking: it may read the keyring)."""

_ADD_KEY = "make one with: parley serve keys add NAME"


def _key_sent(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("x-api-key", "").strip() or None


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


async def _whole_reply(request: Request, model: ChatModel, chat: ChatRequest) -> Response:
    """Generate the whole reply; stop generating when the client goes away first."""

    async def generate() -> Message:
        stream = model.astream(chat.messages, config=chat.config)
        async with closing(stream):
            chunks = [chunk async for chunk in stream]
        if not chunks:
            raise ParleyError("The model sent no reply at all. Try again.")
        return merged(chunks)

    generating = asyncio.ensure_future(generate())
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({generating, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not generating.done():
            generating.cancel()
    if not generating.done() or generating.cancelled():
        return Response(status_code=499)  # nobody is there to read it
    try:
        reply = generating.result()
    except ParleyError as exc:
        return error_response(500, str(exc), "server_error", "model_error")
    return JSONResponse(reply_whole(chat, reply))


def make_app(models: ServedModels, keys: KeyCheck, *, max_body: int = MAX_BODY) -> Starlette:
    """The application serving ``models`` to clients holding one of ``keys``."""

    async def list_models(request: Request) -> Response:
        await _check_key(request, keys)
        data = [_model_object(m) for m in await models.listed()]
        return JSONResponse({"object": "list", "data": data})

    async def one_model(request: Request) -> Response:
        await _check_key(request, keys)
        wanted = request.path_params["model_id"]
        found = next((m for m in await models.listed() if m.id == wanted), None)
        if found is None:
            raise ApiError(
                404,
                f"There is no model {wanted[:200]!r} here; GET /v1/models lists them.",
                "invalid_request_error",
                "model_not_found",
                "model",
            )
        return JSONResponse(_model_object(found))

    async def chat_completions(request: Request) -> Response:
        await _check_key(request, keys)
        chat = read_chat_request(await _body(request, max_body))
        if chat.model.startswith(AGENT_PREFIX):
            raise ApiError(
                400,
                f"Running an agent ({chat.model}) through the server is not available yet; "
                "name a model that GET /v1/models lists.",
                "invalid_request_error",
                "agents_not_yet",
                "model",
            )
        if not await models.knows(chat.model):
            raise ApiError(
                400,
                f"There is no model {chat.model[:200]!r} here; name one that GET /v1/models "
                "lists (parley is the default model).",
                "invalid_request_error",
                "model_not_found",
                "model",
            )
        try:
            model = await models.model(chat.model)
        except ParleyError as exc:
            raise ApiError(
                400, f"The model {chat.model} cannot be used: {exc}", "invalid_request_error",
                "model_not_available", "model",
            ) from None  # fmt: skip
        if chat.stream:
            return StreamingResponse(
                _events(reply_stream(chat, model)),
                media_type="text/event-stream",
                headers={"cache-control": "no-cache"},
            )
        return await _whole_reply(request, model, chat)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return exc.response()

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return error_response(
                404, f"There is nothing at {request.url.path[:200]}; the API is under /v1.",
                "invalid_request_error", "not_found",
            )  # fmt: skip
        return error_response(exc.status_code, str(exc.detail), "invalid_request_error", "http")

    async def client_gone(request: Request, exc: Exception) -> Response:
        return Response(status_code=499)

    async def failed(request: Request, exc: Exception) -> Response:
        return error_response(
            500, "The server failed to answer this request; its log says why. Try again.",
            "server_error", "internal_error",
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
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        ],
        exception_handlers=handlers,
    )


def _model_object(model: ServedModel) -> dict[str, Any]:
    return {"id": model.id, "object": "model", "created": 0, "owned_by": model.owned_by}


async def _events(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``stream``, closed (and the model's generation with it) however it ends."""
    async with closing(stream):
        async for event in stream:
            yield event
