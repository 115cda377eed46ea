"""``create_agent``: the prebuilt agent -> tools -> agent loop."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import takewhile
from typing import Any

from pydantic import BaseModel

from app.core.agent._model_call import stream_reply
from app.core.agent._repeats import refusals, stop_sentence, stopping_call
from app.core.agent._structured import parse_structured, repair_prompt
from app.core.agent._trim import SUMMARY_HEADING, estimate_tokens, trim_with_summary
from app.core.agent.hooks import ContextHook, ModelRequest, citing_chunk
from app.core.budget import Reservation, cost_of
from app.core.checkpoint.base import Checkpointer
from app.core.constants import END, START
from app.core.graph.budget_pause import pause_for_budget
from app.core.graph.builder import StateGraph
from app.core.graph.compiled import CompiledGraph
from app.core.graph.context import RunContext
from app.core.models.protocol import ChatModel, GenerationConfig, ModelInfo
from app.core.state.agent_state import AgentState
from app.core.state.chunks import ChunkMerge
from app.core.state.message import Message, TokenUsages
from app.core.state.message_block import AnnotationRef, ErrorBlock, TextBlock, ToolResultBlock
from app.core.state.message_marks import EndReason, marks
from app.core.tools import ToolAuthorize
from app.core.tools.approvals import ApprovalPolicy
from app.core.tools.node import ToolNode
from app.core.tools.secrets import SecretSource
from app.core.tools.tool import Tool

__all__ = ["create_agent"]

PreModelHook = Callable[[list[Message], AgentState], "list[Message] | None"]
PostModelHook = Callable[[Message, AgentState], "Message | None"]

LAST_CHANCE = (
    "You are about to run out of steps. Answer the user now with what you know, "
    "without calling any tool."
)
OUTPUT_RESERVE = 1024
"""Tokens kept free for the reply when the model's reply limit is unknown."""
MAX_REPLY_TOKENS = 16384
"""The longest reply asked of a model whose own limit is higher."""


def _model_input(context: Sequence[Message]) -> list[Message]:
    """The conversation as the model must see it: every tool call answered, and without the
    messages delegate agents wrote in child runs (an agent reads a delegate's answer, the
    result of its ``ask_*`` call, not its work).

    A call left unanswered (its approval abandoned when the user wrote again) gets an error
    result right after its message, so providers that require pairs accept the history.
    """
    return list(reversed(list(_model_input_newest_first(context))))


def _model_input_newest_first(context: Sequence[Message]) -> Iterator[Message]:
    """:func:`_model_input`, newest message first, made only as far back as it is read (a
    call's results come after it, so walking back meets them first)."""
    answered: set[str] = set()
    following: Message | None = None
    for message in reversed(context):
        if message.agent is not None:
            continue
        if message.role == "tool":
            answered.update(r.call_id for r in message.tool_results())
        elif message.role == "assistant" and following is not None:
            missing = [c for c in message.tool_calls() if c.id not in answered]
            if missing and following.role != "tool":
                yield Message.tool_message(
                    [
                        ToolResultBlock(
                            call_id=c.id,
                            output="Not run: the conversation moved on before it was approved.",
                            status="error",
                            name=c.name,
                        )
                        for c in missing
                    ]
                )
        yield message
        following = message


def _final(text: str, reason: EndReason) -> Message:
    return Message(
        role="assistant", content=[TextBlock(text=text)], metadata=marks(end_reason=reason)
    )


def _stop_circling(message: Message, sentence: str) -> Message:
    """``message`` as the end of its turn: its calls left out (none is run), ``sentence``
    saying why as its error."""
    kept = [b for b in message.content if b.type != "tool_call"]
    return message.model_copy(
        update={
            "content": [*kept, ErrorBlock(error=sentence, code="repeated_call")],
            "metadata": {**message.metadata, **marks(end_reason="repeated_call")},
        }
    )


def _repairs_in_turn(context: Sequence[Message]) -> int:
    count = 0
    for message in reversed(context):
        if message.role == "user":
            if message.note != "repair":
                break
            count += 1
    return count


def create_agent(
    model: ChatModel,
    tools: Sequence[Tool[..., Any] | Callable[..., Any]] = (),
    *,
    system_prompt: str | None = None,
    secret_resolver: SecretSource | None = None,
    response_format: type[BaseModel] | None = None,
    pre_model_hook: PreModelHook | None = None,
    context_hook: ContextHook | None = None,
    post_model_hook: PostModelHook | None = None,
    trim_context: bool = False,
    tool_authorize: ToolAuthorize | None = None,
    approval_policy: ApprovalPolicy | None = None,
    checkpointer: Checkpointer | None = None,
    state_schema: type[AgentState] = AgentState,
    generation: GenerationConfig | None = None,
    max_repairs: int = 2,
    step_limit: int = 25,
    name: str = "agent",
    agent_name: str = "The agent",
) -> CompiledGraph[Any]:
    """Build the agent loop: the model answers or asks for tools; tools run; repeat.

    The run ends when the model answers without tool calls, when a budget is used up (with a
    final message saying so), when the step limit is near (the model gets one last call
    without tools), on a model error (kept as an ``ErrorBlock``), on a stop request, or when
    the model keeps asking for one call: a call that failed in the turn, or ran twice, is not
    run again (the model reads why), and asking for it once more ends the turn with an
    ``ErrorBlock`` (code ``repeated_call``) naming ``agent_name``, the agent as the person
    knows it.
    Its runs read the :class:`~app.core.graph.run_config.RunConfig`'s ``tool_permissions``,
    ``limits`` (``max_model_calls``, ``max_tool_calls``, ``max_tokens``, ``max_cost`` in a dict),
    ``thread_id``, ``step_limit`` and ``budget_pause``. ``pre_model_hook`` may change the
    messages sent; ``context_hook``, given the run as well (see :mod:`app.core.agent.hooks`),
    may change them too and name the sources the reply cites.
    """
    tool_node = ToolNode(
        tools,
        secret_resolver=secret_resolver,
        tool_authorize=tool_authorize,
        approval_policy=approval_policy,
        screen=refusals,
    )
    specs = tool_node.specs
    base_config = generation or GenerationConfig()
    if response_format is not None:
        base_config = base_config.model_copy(
            update={"response_schema": response_format.model_json_schema()}
        )
    info = model.info
    # one reply budget shared by trimming and the request, so the prompt plus the longest
    # allowed reply always fit the model's window
    known_cap = info.max_output_tokens
    reply_cap = base_config.max_tokens or (min(known_cap, MAX_REPLY_TOKENS) if known_cap else None)
    if reply_cap is not None and base_config.max_tokens is None:
        base_config = base_config.model_copy(update={"max_tokens": reply_cap})

    def _fitted(state: AgentState, room: int, update: dict[str, Any]) -> list[Message]:
        """The messages sent (those that fit ``room`` with the summary of the others, when
        trimming), the summary put in ``update``."""
        if not trim_context:
            return _model_input(state.context)
        context = state.context
        sendable, summary = trim_with_summary(lambda: _model_input_newest_first(context), room)
        update.pop("context_summary", None)
        if summary is not None and summary != state.context_summary:
            update["context_summary"] = summary
        return sendable

    def _with_system(
        state: AgentState, sendable: list[Message], update: dict[str, Any], last_chance: bool
    ) -> list[Message]:
        """``sendable`` after the system prompt (with the summary and the last-chance
        warning), as the pre-model hook leaves it."""
        system = system_prompt or ""
        summary_now = update.get("context_summary", state.context_summary if trim_context else None)
        if summary_now:
            system += ("\n\n" if system else "") + SUMMARY_HEADING + summary_now
        if last_chance:
            system += ("\n\n" if system else "") + LAST_CHANCE
        model_input = ([Message(role="system", content=system)] if system else []) + sendable
        if pre_model_hook is not None:
            model_input = pre_model_hook(model_input, state) or model_input
        return model_input

    async def agent(state: AgentState, ctx: RunContext) -> Any:
        context = list(state.context)
        # only the results of the calls just made count: an earlier turn's budget stop is over
        latest = takewhile(lambda m: m.role == "tool", reversed(context))
        if any(m.tool_error == "budget" for m in latest):
            limit = ctx.budget.limits.max_tool_calls
            return _final(
                f"I stopped before finishing: the tool-call budget ({limit}) is used up.", "budget"
            )
        update: dict[str, Any] = {}
        room = 0
        if trim_context:
            # from the newest message back, only as far as the window holds with the summary
            # of what it drops: a long thread costs what is sent, not its length
            reserve = reply_cap or OUTPUT_RESERVE
            room = info.context_window - reserve - len(system_prompt or "") // 4 - 64
        sendable = _fitted(state, room, update)
        last_chance = bool(specs) and ctx.remaining_steps < 3
        model_input = _with_system(state, sendable, update, last_chance)
        offered = None if last_chance or not specs else specs
        cites: Sequence[AnnotationRef] = ()
        hook_marks: dict[str, Any] = {}
        if context_hook is not None:
            request = ModelRequest(model_input, offered or (), state, ctx, info)
            prepared = await context_hook(request)
            if prepared is not None:
                cites, hook_marks = prepared.cites, dict(prepared.metadata)
                sent = list(prepared.messages)
                added = sum(map(estimate_tokens, sent)) - sum(map(estimate_tokens, model_input))
                kept_ids = {m.message_id for m in model_input}
                rewrote_only = all(m.message_id in kept_ids for m in sent)
                if trim_context and added > 0 and rewrote_only:
                    # what the hook put in (knowledge passages) was not counted when trimming;
                    # a hook that inserts messages of its own is sent as it left them
                    mine = {id(m) for m in model_input}
                    changed = {m.message_id: m for m in sent if id(m) not in mine}
                    sendable = _fitted(state, room - added, update)
                    again = _with_system(state, sendable, update, last_chance)
                    sent = [changed.get(m.message_id, m) for m in again]
                model_input = sent

        # checked and counted in one step: delegates asked side by side share the budget
        prompt = sum(estimate_tokens(m) for m in model_input)
        held = await _reserve(ctx, prompt, reply_cap or OUTPUT_RESERVE, info)
        while True:
            blocker = held if isinstance(held, str) else None
            phrase = ctx.budget.describe(blocker) if blocker else ""
            if not pause_for_budget(ctx, blocker):
                return _final(f"I stopped before finishing: {phrase} is used up.", "budget")
            if not isinstance(held, str):
                break
            held = await _reserve(ctx, prompt, reply_cap or OUTPUT_RESERVE, info)

        reply = await stream_reply(model, model_input, offered, base_config, ctx, held)
        message = reply.message
        ending = None if reply.stopped or reply.failed else citing_chunk(message, cites)
        if ending is not None:  # streamed as the reply's last chunk, and kept in it
            ctx.stream_message(ending)
            merge = ChunkMerge(message)
            merge.add(ending)
            message = merge.message().model_copy(update={"delta": False})
        if hook_marks:  # what the hook put before the model, kept on the reply
            message = message.model_copy(update={"metadata": {**message.metadata, **hook_marks}})
        if post_model_hook is not None:
            message = post_model_hook(message, state) or message
        if last_chance and message.tool_calls():
            message = message.model_copy(
                update={
                    "content": [
                        *[b for b in message.content if b.type != "tool_call"],
                        TextBlock(text="(I ran out of steps before I could use a tool.)"),
                    ]
                }
            )
        if last_chance and message.end_reason is None:
            message = message.model_copy(
                update={"metadata": {**message.metadata, **marks(end_reason="out_of_steps")}}
            )
        if message.end_reason is None and (going := stopping_call(context, message.tool_calls())):
            message = _stop_circling(message, stop_sentence(agent_name, going[1]))
        replies: list[Message] = [message]
        if response_format is not None and not (
            message.tool_calls()
            or reply.failed
            or reply.stopped
            or message.end_reason == "repeated_call"
        ):
            # with no step left for another model call there is no repair round
            repairs = 0 if last_chance or ctx.remaining_steps < 2 else max_repairs
            replies = _structured(message, response_format, context, repairs)
        update["context"] = replies
        return update

    def route(state: AgentState) -> str:
        last = state.context[-1] if state.context else None
        if last is None:
            return END
        if last.role == "user" and last.note == "repair":
            return "agent"
        if last.role == "assistant" and last.tool_calls() and last.end_reason is None:
            return "tools"
        return END

    graph = (
        StateGraph(state_schema)
        .add_node("agent", agent)
        .add_node("tools", tool_node)
        .add_edge(START, "agent")
        .add_conditional_edges("agent", route, ["agent", "tools", END])
        .add_edge("tools", "agent")
    )
    return graph.compile(checkpointer=checkpointer, name=name, step_limit=step_limit)


async def _reserve(ctx: RunContext, prompt: int, reply: int, info: ModelInfo) -> Reservation | str:
    """Reserve the next model call in the run's budget (its prompt of about ``prompt``
    tokens, and a reply of up to ``reply``), or the name of the limit it would go over."""
    cost = cost_of(TokenUsages(prompt_tokens=prompt), info.price)
    most = cost_of(TokenUsages(completion_tokens=reply), info.price)
    return await ctx.budget.reserve_model_call(prompt, cost, reply, ctx.agent, most)


def _structured(
    message: Message, schema: type[BaseModel], context: list[Message], max_repairs: int
) -> list[Message]:
    value, problem = parse_structured(message.text(), schema)
    if value is not None:
        message.metadata["structured_response"] = value.model_dump(mode="json")
        return [message]
    used = _repairs_in_turn(context)
    if used < max_repairs:
        fix = Message.text_message(repair_prompt(problem, schema), metadata=marks(note="repair"))
        return [message, fix]
    failed = message.model_copy(
        update={
            "content": [
                *message.content,
                ErrorBlock(
                    error=f"No valid structured reply after {used} repairs: {problem}",
                    code="structured_output",
                ),
            ],
            "metadata": {
                **message.metadata,
                **marks(end_reason="invalid_output"),
                "structured_error": problem,
            },
        }
    )
    return [failed]
