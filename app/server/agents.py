"""An agent served as a chat model (``agent:NAME``): each request is one turn of the agent on
a thread of its own, with its instructions, tools, delegates, knowledge and limits, kept like
any thread. A call that needs approval is asked in the window's dialog when the server runs
inside the window (naming the agent and the key), and denied with a sentence when nobody is
at a window or nobody answers in time (a rule made in the window can allow it ahead of time);
the client is told; a run that stops at a budget limit stays paused in its thread, and the client is
told where to continue it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from app.core.errors import ModelError
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.state import AgentState, ContentBlock, Message, TextBlock
from app.core.state.message import TokenUsages, new_message_id
from app.core.tools import ApprovalDecision, ApprovalRequest, DecisionPostponed
from app.server.asking import asking_key, key_room
from app.services.agents import Agent
from app.services.conversation import Conversation, TurnOutcome
from app.services.events import BudgetPaused, MessageAdded, MessageStreamed, WorkspaceEvent
from app.services.server_keys import ServerKeys
from app.services.threads import title_of
from app.services.workspace import Workspace

__all__ = [
    "APPROVAL_WAIT",
    "AgentModel",
    "HeadlessApprovals",
    "WindowApprovals",
    "WindowAsk",
]


APPROVAL_WAIT = 120.0
"""How long a call an agent run through the API wants to make waits for the person at the
window, in seconds, before it is denied."""

WindowAsk = Callable[[str, str, Sequence[ApprovalRequest]], Awaitable[list[ApprovalDecision]]]
"""``ask(agent name, key name, requests)``: the window's decisions (its approval dialog);
raises :class:`DecisionPostponed` when it was closed undecided."""

_NOBODY = "nobody was at the window to give it"

_STOPPING = 10.0
"""How long a run whose client went away is given to stop and keep what arrived, in
seconds, before it is cut off."""


class HeadlessApprovals:
    """The approvals of a run nobody watches: every call put to a person is denied, with
    the reason the model reads; what was denied is kept for the client's note."""

    def __init__(self) -> None:
        self.denied: list[str] = []
        self.why = _NOBODY
        """Why the calls were denied, as the client's note says it."""
        self.room: int | None = None
        """The tokens the asking key had left today (``None``: no daily limit)."""
        self.paused: BudgetPaused | None = None
        """The budget limit the run paused at, if it did."""

    def over_key(self) -> str:
        """The sentence saying the run stopped at the key's daily tokens (empty when it
        did not stop there)."""
        pause = self.paused.pause if self.paused is not None else None
        if pause is None or self.room is None or pause.limit != "max_tokens":
            return ""
        if pause.value > self.room:
            return ""
        key = asking_key.get()
        return (
            f"The run stopped before its next step, which could pass the {self.room:,} tokens "
            f"the key {key} had left for today (it used {pause.used:,.0f})"
        )

    async def decide(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """Deny each request."""
        self.denied.extend(r.tool for r in requests)
        reason = (
            f"Denied: this run was asked through Parley's API and the call needs the owner's "
            f"approval; {self.why}. Do not retry it; say what you would have done instead."
        )
        return [
            ApprovalDecision(call_id=r.call_id, decision="deny", reason=reason) for r in requests
        ]

    def note(self) -> str:
        """What the client is told about the denied calls (empty when none were)."""
        if not self.denied:
            return ""
        tools = ", ".join(dict.fromkeys(self.denied))
        return (
            f"Parley denied {tools}: it needs the owner's approval and {self.why}. An "
            '"Always allow" rule made in Parley\'s window lets such a call run through the API.'
        )


class WindowApprovals(HeadlessApprovals):
    """The approvals of a run asked through the API while the window is open: each call is
    put to the person in the window's dialog (``ask``), naming the agent and the key; a
    dialog closed undecided, or not answered within ``wait`` seconds (by default
    :data:`APPROVAL_WAIT`), denies it."""

    def __init__(self, ask: WindowAsk, agent: str, key: str, wait: float | None = None) -> None:
        super().__init__()
        self._ask, self._agent, self._key = ask, agent, key
        self._wait = APPROVAL_WAIT if wait is None else wait

    async def decide(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """The person's decisions, or a denial of each when none came in time."""
        try:
            asked = self._ask(self._agent, self._key, requests)
            return list(await asyncio.wait_for(asked, self._wait))
        except TimeoutError:
            unit = "second" if self._wait == 1 else "seconds"
            self.why = f"nobody answered at the window within {self._wait:g} {unit}"
        except DecisionPostponed:
            self.why = "the window's dialog was closed without a decision"
        return await super().decide(requests)


class AgentModel:
    """:class:`~app.core.models.protocol.ChatModel` over one agent of ``workspace``: the
    client's last user message is sent on a new thread of the agent (the earlier messages it
    sent go before it), and the reply is the agent's last answer of the turn, with the
    tokens of every model call in it."""

    def __init__(self, workspace: Workspace, agent: Agent, ask: WindowAsk | None = None) -> None:
        self._workspace = workspace
        self._agent = agent
        self._ask = ask

    @property
    def info(self) -> ModelInfo:
        """The agent, as a model named ``agent:NAME``."""
        return ModelInfo(
            spec=f"agent:{self._agent.name}",
            name=self._agent.name,
            provider="agent",
            supports_tools=False,
            input_kinds=frozenset({"text", "image", "document"}),
        )

    def _approvals(self) -> HeadlessApprovals:
        approvals = (
            HeadlessApprovals()
            if self._ask is None
            else WindowApprovals(self._ask, self._agent.name, asking_key.get())
        )
        approvals.room = key_room.get()
        return approvals

    async def _turn(
        self, messages: Sequence[Message], approvals: HeadlessApprovals, heard: _Heard | None
    ) -> tuple[TurnOutcome, str]:
        """Run the agent's turn on a new thread to its end (``heard`` hears its events):
        how it ended and the thread's id."""
        history, last = _split(messages)
        text = "\n\n".join(b.text for b in last.content if isinstance(b, TextBlock))
        blocks: list[ContentBlock] = [b for b in last.content if not isinstance(b, TextBlock)]

        def hear(event: WorkspaceEvent) -> None:
            if isinstance(event, BudgetPaused) and event.pause.agent is None:
                approvals.paused = event
            if heard is not None:
                heard(event)

        conversation = Conversation(self._workspace, approvals=approvals, on_event=hear)
        key = asking_key.get()
        keep = not key or await asyncio.to_thread(
            ServerKeys(self._workspace.data_dir).keeps_threads, key
        )
        thread = await self._workspace.threads.create(
            title=title_of(text) or "Through the API", agent_id=self._agent.id, origin="api"
        )
        sending = asyncio.ensure_future(
            conversation.send(thread.id, text, blocks, history=history, token_cap=approvals.room)
        )
        try:
            outcome = await asyncio.shield(sending)
        except asyncio.CancelledError:
            # the client went away: the run stops at its next piece, keeping what arrived
            # (a run waiting for a decision stops at once)
            if self._workspace.runs.stop(thread.id):
                await asyncio.wait({sending}, timeout=_STOPPING)
            sending.cancel()
            raise
        finally:
            if not keep:  # the key keeps no threads: the run's thread goes once it ends
                await self._workspace.threads.delete(thread.id)
        return outcome, thread.id if keep else ""

    def _notes(
        self, outcome: TurnOutcome, thread_id: str, approvals: HeadlessApprovals
    ) -> list[str]:
        """What the client is told after the answer; a :class:`ModelError` when the turn
        failed before answering."""
        if outcome.problems and (outcome.state is None or not _answers(outcome.state)):
            raise ModelError(f"{self._agent.name} could not answer: {outcome.problems[-1].text}")
        notes = [approvals.note()]
        if outcome.waiting and (stop := approvals.over_key()):
            where = f"; it is kept in Parley's window (thread {thread_id})" if thread_id else ""
            notes.append(f"{stop}{where}.")
        elif outcome.waiting and not thread_id:
            notes.append(
                f"The run stopped at one of {self._agent.name}'s limits; it was not kept, "
                "as this key keeps no threads."
            )
        elif outcome.waiting:
            notes.append(
                f"The run paused at one of {self._agent.name}'s limits; continue it in "
                f"Parley's window (thread {thread_id}) or with: parley chat --thread "
                f"{thread_id} --resume"
            )
        return [n for n in notes if n]

    async def agenerate(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> Message:
        """Run the agent's turn to its end and return its answer."""
        approvals = self._approvals()
        outcome, thread_id = await self._turn(messages, approvals, None)
        return _reply(outcome.state, self._notes(outcome, thread_id, approvals))

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """The agent's answers as they are made, piece by piece (a blank line between two
        answers of the turn), then the notes for the client with the turn's usage. Closing
        this stream (the client went away) stops the run."""
        heard, reply_id = _Heard(), new_message_id()
        approvals = self._approvals()
        turn = asyncio.ensure_future(self._turn(messages, approvals, heard))
        getting: asyncio.Future[str] | None = None
        try:
            while not turn.done() or not heard.pieces.empty():
                if heard.pieces.empty():
                    getting = asyncio.ensure_future(heard.pieces.get())
                    await asyncio.wait({getting, turn}, return_when=asyncio.FIRST_COMPLETED)
                    if not getting.done():
                        getting.cancel()
                        continue
                    piece = getting.result()
                else:
                    piece = heard.pieces.get_nowait()
                yield _delta(reply_id, piece)
            outcome, thread_id = turn.result()
            notes = self._notes(outcome, thread_id, approvals)
            usage = _usage(_answers(outcome.state) if outcome.state is not None else [])
            tail = "\n\n".join(notes)
            yield _delta(reply_id, f"\n\n{tail}" if tail and heard.sent else tail, usage)
        finally:
            if getting is not None and not getting.done():
                getting.cancel()
            if not turn.done():
                turn.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await turn


class _Heard:
    """Hears a thread's events and keeps the new text of its answers (not a delegate's) as
    pieces, in order, with a blank line before an answer that follows one already sent."""

    def __init__(self) -> None:
        self.pieces: asyncio.Queue[str] = asyncio.Queue()
        self.sent = False
        self._shown: dict[str, int] = {}
        self._current = ""

    def __call__(self, event: WorkspaceEvent) -> None:
        if not isinstance(event, MessageStreamed | MessageAdded):
            return
        message = event.message
        if message.role != "assistant" or message.agent is not None:
            return
        key = str(message.message_id)
        text = message.text()
        shown = self._shown.get(key, 0)
        if len(text) <= shown:
            return
        piece = text[shown:]
        if key != self._current and shown == 0 and self.sent:
            piece = "\n\n" + piece
        self._shown[key] = len(text)
        self._current = key
        self.sent = True
        self.pieces.put_nowait(piece)


def _delta(reply_id: str, text: str, usage: TokenUsages | None = None) -> Message:
    """A streamed piece of the reply ``reply_id`` (with the turn's usage on the last)."""
    extra: dict[str, Any] = {} if usage is None else {"usages": usage}
    content = [TextBlock(text=text)] if text else []
    return Message(role="assistant", content=content, message_id=reply_id, delta=True, **extra)


def _usage(answers: list[Message]) -> TokenUsages | None:
    """The tokens of every model call of the turn's answers."""
    usage: TokenUsages | None = None
    for answer in answers:
        if answer.usages is not None:
            usage = answer.usages if usage is None else usage + answer.usages
    return usage


def _split(messages: Sequence[Message]) -> tuple[list[Message], Message]:
    """The client's earlier messages (its own system prompt left out: the agent has its
    instructions) and its last user message."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        raise ModelError("there is no user message to answer; send one")
    last = users[-1]
    history = [m for m in messages[:last] if m.role in ("user", "assistant")]
    return history, messages[last]


def _answers(state: AgentState) -> list[Message]:
    """The answers of the turn just run: the thread's assistant messages after its last
    user message (a delegate's work left out)."""
    context = state.context
    users = [i for i, m in enumerate(context) if m.role == "user" and m.agent is None]
    start = users[-1] + 1 if users else 0
    return [m for m in context[start:] if m.role == "assistant" and m.agent is None]


def _reply(state: AgentState | None, notes: list[str]) -> Message:
    """The client's reply: the last answer's text and the notes after it, with the usage
    summed over the turn."""
    answers = _answers(state) if state is not None else []
    usage = _usage(answers)
    text = answers[-1].text() if answers else ""
    body = "\n\n".join(part for part in [text, *notes] if part)
    extra: dict[str, Any] = {} if usage is None else {"usages": usage}
    return Message(
        role="assistant",
        content=[TextBlock(text=body)],
        message_id=new_message_id(),
        **extra,
    )
