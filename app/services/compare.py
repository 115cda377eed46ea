"""``CompareService``: one question sent to two to four models at once, each answer kept as a
version (a branch) of the same answer in one thread.

Remote models stream side by side; models that run on this computer (``local``, ``gguf:``)
take their turn one at a time, while the remote ones stream. Each model's answer is read as it
comes (:class:`Column`, handed to ``on_change`` after each piece) with its figures: the time to
its first token, tokens per second, tokens and cost. A model that fails keeps its sentence in
its column and the others go on; offline, a remote model is refused by the network gate with
its one sentence, and the refusal is in the ledger.

Once every model has ended, the thread is written: the question, then each answer in turn as
the next version of the answer (through :meth:`Store.keep_branch`, as answering again does),
and the first answer is shown. :meth:`CompareService.keep` shows another one (the window's
"Continue with this one").
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from app.core.budget import cost_of
from app.core.checkpoint.base import Checkpoint, new_checkpoint_id
from app.core.errors import ModelError, ParleyError, UserError
from app.core.models.protocol import ChatModel
from app.core.netgate import purpose
from app.core.state import AgentState, ChunkMerge, ErrorBlock, Message, TextBlock
from app.core.state.message_block import ReasoningBlock
from app.core.state.message_marks import marks
from app.core.userinfo import without_userinfo
from app.providers.spec import parse_spec
from app.services.bus import EventBus
from app.services.events import ThreadsChanged
from app.services.threads import title_of
from app.store import Store

__all__ = [
    "MAX_MODELS",
    "MIN_MODELS",
    "Column",
    "CompareService",
    "Comparison",
    "Figures",
    "runs_here",
]

log = logging.getLogger(__name__)

MIN_MODELS = 2
MAX_MODELS = 4

ModelFor = Callable[[str], Awaitable[ChatModel]]
"""``model(spec)``: the model a spec names, built (the model service's ``model``)."""


def runs_here(spec: str) -> bool:
    """Whether the model ``spec`` names runs in this process on this computer's cores (the
    bundled model, a GGUF file): such models answer one at a time."""
    return spec.strip() == "local" or spec.startswith("gguf:")


@dataclass(frozen=True, slots=True)
class Figures:
    """How one model answered: seconds to its first token, tokens per second after it, the
    reply's tokens and its cost in US dollars (``None`` where the model did not say)."""

    first_token: float | None = None
    tokens_per_second: float | None = None
    tokens: int | None = None
    cost: float | None = None

    def line(self) -> str:
        """The figures as one line: ``0.42 s to first token, 31.0 tokens/s, 120 tokens,
        $0.0012`` (a model at no price is ``free``, a tiny cost shown to its first two
        digits; what is not known is left out)."""
        parts = []
        if self.first_token is not None:
            parts.append(f"{self.first_token:.2f} s to first token")
        if self.tokens_per_second is not None:
            parts.append(f"{self.tokens_per_second:.1f} tokens/s")
        if self.tokens is not None:
            parts.append(f"{self.tokens} token{'s' if self.tokens != 1 else ''}")
        if self.cost is not None:
            parts.append(_dollars(self.cost))
        return ", ".join(parts) if parts else "no figures"


@dataclass(slots=True)
class Column:
    """One model's answer as it comes: its text so far, its figures once it has ended, and
    its failure's sentence (``error``) when it failed."""

    spec: str
    state: str = "waiting"
    """``waiting`` (a model on this computer waits for its turn), ``streaming``, ``done``,
    ``failed``."""
    figures: Figures = field(default_factory=Figures)
    error: str | None = None
    message_id: str | int | None = None
    """The answer's message in the thread, once written (``None`` for a failure)."""
    _pieces: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The answer so far (its pieces joined when read, not as each arrives)."""
        if len(self._pieces) > 1:
            self._pieces[:] = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def add(self, piece: str) -> None:
        """One more piece of the answer."""
        self._pieces.append(piece)

    @property
    def ended(self) -> bool:
        """Whether the model has answered or failed."""
        return self.state in ("done", "failed")


@dataclass(slots=True)
class Comparison:
    """The models' answers to one question, kept in thread ``thread_id``."""

    thread_id: str
    prompt: str
    columns: list[Column]
    note: str = ""
    """Said when the answers went elsewhere than asked (the thread changed meanwhile)."""

    @property
    def answered(self) -> list[Column]:
        """The columns whose model answered (each a version of the answer, in this order)."""
        return [c for c in self.columns if c.state == "done"]


class CompareService:
    """Sends one question to several models; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        events: EventBus,
        model: ModelFor,
        refuse_if_busy: Callable[[str], None],
        system_prompt: str = "",
    ) -> None:
        self._store = store
        self._events = events
        self._model = model
        self._refuse_if_busy = refuse_if_busy
        self._system_prompt = system_prompt
        self._here = asyncio.Lock()
        """Held by the model on this computer that answers now."""

    @staticmethod
    def check(specs: Sequence[str]) -> list[str]:
        """The specs, each parsed (a bad one is refused in its sentence), when there are two
        to four different ones; else :class:`UserError`."""
        specs = [s.strip() for s in specs]
        if not MIN_MODELS <= len(specs) <= MAX_MODELS:
            raise UserError(
                f"compare takes {MIN_MODELS} to {MAX_MODELS} models, not {len(specs)}; "
                "name each with --model"
            )
        if len(set(specs)) != len(specs):
            raise UserError("each model to compare must be a different one")
        for spec in specs:
            parse_spec(spec)
        return specs

    async def compare(
        self,
        prompt: str,
        specs: Sequence[str],
        *,
        thread_id: str | None = None,
        on_change: Callable[[int, Column], None] | None = None,
        stop: asyncio.Event | None = None,
    ) -> Comparison:
        """Ask each model in ``specs`` ``prompt`` (after the path ``thread_id`` shows, or in a
        new thread when ``None``), calling ``on_change(index, column)`` as each answer comes;
        returns them once all have ended and the thread holds them (the first shown). Once
        ``stop`` is set, every answer ends where it is (kept, marked stopped)."""
        if not prompt.strip():
            raise UserError("there is nothing to send: the message is empty")
        specs = self.check(specs)
        before: list[Message] = []
        latest: Checkpoint | None = None
        system = self._system_prompt
        thread = None
        if thread_id is not None:
            self._refuse_if_busy(thread_id)
            thread = await self._store.get_thread(thread_id)
            if thread is None:
                raise UserError(f"there is no thread {thread_id}")
            system = thread.system_prompt or system
            latest = await self._store.checkpointer.aget(thread_id, AgentState)
            before = list(latest.state.context) if latest else []
        question = Message(role="user", content=[TextBlock(text=prompt)])
        sent = [*([Message(role="system", content=system)] if system else []), *before, question]
        columns = [Column(spec) for spec in specs]

        def changed(index: int) -> None:
            if on_change is not None:
                on_change(index, columns[index])

        replies = await asyncio.gather(
            *(
                self._answer(spec, sent, columns[i], partial(changed, i), stop)
                for i, spec in enumerate(specs)
            )
        )
        note = ""
        if thread_id is not None and await self._moved_on(thread_id, latest):
            # a turn was sent meanwhile: the answers go to a thread of their own, losing none
            note = (
                "The thread changed while the models answered, so their answers are kept in "
                "a new thread that starts with the same conversation."
            )
            thread_id, latest = None, None
        if thread_id is None:
            thread = await self._store.create_thread(title_of(prompt), model=specs[0])
            thread_id = thread.id
        elif thread is not None and not thread.title:
            await self._store.rename_thread(thread_id, title_of(prompt))
        await self._write(thread_id, latest, before, question, columns, replies)
        self._events.emit(ThreadsChanged(thread_id))
        return Comparison(thread_id, prompt, columns, note)

    async def _moved_on(self, thread_id: str, latest: Checkpoint | None) -> bool:
        """Whether the thread's latest step is no longer ``latest`` (or it is gone)."""
        if await self._store.get_thread(thread_id) is None:
            return True
        now = await self._store.checkpointer.aget(thread_id, AgentState)
        before = latest.checkpoint_id if latest is not None else None
        return (now.checkpoint_id if now is not None else None) != before

    async def keep(self, comparison: Comparison, index: int) -> None:
        """Show column ``index``'s answer in the thread (the other answers stay versions of
        it) and answer the thread's next turns with its model."""
        column = comparison.columns[index]
        if column.message_id is None:
            raise UserError(f"{column.spec} gave no answer to keep")
        thread_id = comparison.thread_id
        self._refuse_if_busy(thread_id)
        answered = [c.message_id for c in comparison.answered]
        latest = await self._store.checkpointer.aget(thread_id, AgentState)
        shown = [m.message_id for m in latest.state.context] if latest else []
        now = next((mid for mid in shown if mid in answered), None)
        if now is None:
            raise UserError("the compared answers are no longer on the path the thread shows")
        if len(answered) > 1:
            await self._store.switch_branch(thread_id, now, answered.index(column.message_id) + 1)
        await self._store.update_thread(thread_id, model=column.spec)
        self._events.emit(ThreadsChanged(thread_id))

    async def _answer(
        self,
        spec: str,
        sent: list[Message],
        column: Column,
        changed: Callable[[], None],
        stop: asyncio.Event | None = None,
    ) -> Message | None:
        """Stream one model's answer into ``column``; the whole reply, or ``None`` when it
        failed (its sentence in ``column.error``)."""
        try:
            model = await self._model(spec)
        except ParleyError as exc:
            return self._failed(column, str(exc), changed)
        if runs_here(spec):
            changed()  # waiting for its turn
            async with self._here:
                return await self._stream(model, spec, sent, column, changed, stop)
        return await self._stream(model, spec, sent, column, changed, stop)

    async def _stream(
        self,
        model: ChatModel,
        spec: str,
        sent: list[Message],
        column: Column,
        changed: Callable[[], None],
        stop: asyncio.Event | None = None,
    ) -> Message | None:
        column.state = "streaming"
        changed()
        merge: ChunkMerge | None = None
        started = time.perf_counter()
        first: float | None = None

        async def read() -> None:
            nonlocal merge, first
            stream = model.astream(sent)
            try:
                async for chunk in stream:
                    if merge is None:
                        merge = ChunkMerge(chunk)
                    else:
                        merge.add(chunk)
                    piece = "".join(b.text for b in chunk.content if isinstance(b, TextBlock))
                    thought = any(isinstance(b, ReasoningBlock) for b in chunk.content)
                    if first is None and (piece or thought):
                        first = time.perf_counter()
                    if piece:
                        column.add(piece)
                        changed()
            finally:
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()

        try:
            with purpose(without_userinfo(f"the model {spec}")):
                stopped = await _until_stopped(read(), stop)
        except ModelError as exc:
            return self._failed(column, without_userinfo(str(exc)), changed)
        except Exception as exc:  # one model's fault never ends the others' answers
            log.exception("comparing: the model %s failed unexpectedly", without_userinfo(spec))
            sentence = f"Something went wrong inside Parley ({type(exc).__name__}); try it again."
            return self._failed(column, sentence, changed)
        ended = time.perf_counter()
        if merge is None:
            said = "Stopped before it answered." if stopped else "The model sent no reply at all."
            return self._failed(column, said if stopped else f"{said} Try again.", changed)
        reply = merge.message().model_copy(update={"delta": False})
        if stopped:
            reply = reply.model_copy(
                update={"metadata": {**reply.metadata, **marks(end_reason="stopped")}}
            )
        column.figures = _figures(reply, model, started, first, ended)
        column.state = "done"
        notes = [*reply.metadata.get("notes", []), f"{spec}: {column.figures.line()}"]
        reply = reply.model_copy(update={"metadata": {**reply.metadata, "notes": notes}})
        changed()
        return reply

    @staticmethod
    def _failed(column: Column, sentence: str, changed: Callable[[], None]) -> None:
        column.state = "failed"
        column.error = sentence
        changed()
        return None

    async def _write(
        self,
        thread_id: str,
        latest: Checkpoint | None,
        before: list[Message],
        question: Message,
        columns: list[Column],
        replies: list[Message | None],
    ) -> None:
        """Save the question and each answer as the next version of the answer, the first
        shown (all failed: the question with the first failure, so nothing asked is lost)."""
        kept = [(c, r) for c, r in zip(columns, replies, strict=True) if r is not None]
        if not kept:
            failure = Message(
                role="assistant",
                content=[ErrorBlock(error=columns[0].error or "no model answered", code="model")],
                metadata=marks(end_reason="failed"),
            )
            await self._put(thread_id, latest, [*before, question, failure])
            return
        previous: str | int | None = None
        for column, reply in kept:
            if previous is not None:  # the answer so far becomes a version of the answer
                await self._store.keep_branch(thread_id, previous)
            latest = await self._put(thread_id, latest, [*before, question, reply])
            column.message_id = previous = reply.message_id
        if len(kept) > 1:
            assert previous is not None
            await self._store.switch_branch(thread_id, previous, 1)

    async def _put(
        self, thread_id: str, latest: Checkpoint | None, context: list[Message]
    ) -> Checkpoint:
        base = latest.state if latest is not None else AgentState()
        checkpoint = Checkpoint(
            thread_id=thread_id,
            checkpoint_id=new_checkpoint_id(),
            parent_id=latest.checkpoint_id if latest else None,
            step=latest.step + 1 if latest else 0,
            state=base.model_copy(update={"context": context}),
            source="update",
        )
        await self._store.checkpointer.aput(checkpoint, None)
        return checkpoint


async def _until_stopped(reading: Awaitable[None], stop: asyncio.Event | None) -> bool:
    """Run ``reading`` to its end, or until ``stop`` is set (then it is cancelled where it
    is, whatever it waits for); whether it was stopped. Its errors are raised."""
    task = asyncio.ensure_future(reading)
    if stop is None:
        await task
        return False
    halt = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, halt}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # the comparison itself was cancelled
        task.cancel()
        raise
    finally:
        halt.cancel()
    if task.done():
        task.result()
        return False
    task.cancel()
    await asyncio.wait({task})  # its cancellation, not raised here
    return True


def _dollars(cost: float) -> str:
    """``free``, ``$0.0012``, or a smaller cost to its first two digits (``$0.000032``)."""
    if cost <= 0:
        return "free"
    places = 4 if cost >= 0.001 else min(10, 1 - math.floor(math.log10(cost)))
    return f"${cost:.{places}f}"


def _figures(
    reply: Message, model: ChatModel, started: float, first: float | None, ended: float
) -> Figures:
    usage = reply.usages
    tokens = usage.completion_tokens if usage is not None and usage.completion_tokens else None
    speed = None
    if tokens and first is not None and ended > first:
        speed = tokens / (ended - first)
    cost = cost_of(usage, model.info.price) if usage is not None else None
    return Figures(
        first_token=None if first is None else first - started,
        tokens_per_second=speed,
        tokens=tokens,
        cost=cost,
    )
