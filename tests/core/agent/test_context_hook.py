"""The pre-model hook given the run: it reads the caller's typed deps from the run context,
changes what the model is sent (never what is saved), and the sources it names end the reply
as one more streamed chunk carrying them on its text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core import HumanMessage, create_agent, tool
from app.core.agent._trim import estimate_tokens
from app.core.agent.hooks import ModelInput, ModelRequest, chain_hooks
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import MessageDelta, RunConfig
from app.core.models import ChatModel, ModelInfo, ScriptedChatModel
from app.core.state import Message, TextBlock
from app.core.state.message_block import AnnotationRef


@dataclass(frozen=True)
class Facts:
    """What the caller knows of its run."""

    reader: str
    passages: bool = True


CITED = AnnotationRef(url="file:///docs/garden.md", title="garden.md, Garden notes › Watering")


async def put_note(request: ModelRequest) -> ModelInput | None:
    facts = request.ctx.deps_as(Facts)
    if facts is None or not facts.passages or request.tools:
        return None
    sent = list(request.messages)
    question = sent[-1]
    sent[-1] = question.model_copy(
        update={"content": [TextBlock(text=f"For {facts.reader}: {question.text()}")]}
    )
    return ModelInput(sent, [CITED])


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def annotations(message: Message) -> list[AnnotationRef]:
    return [a for b in message.content if isinstance(b, TextBlock) for a in b.annotations]


async def test_the_hook_reads_the_run_s_deps_and_its_sources_end_the_reply() -> None:
    seen: list[str] = []

    def answer(messages: Sequence[Message]) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "In the evening."}

    agent = create_agent(
        ScriptedChatModel(answer), context_hook=put_note, checkpointer=InMemoryCheckpointer()
    )
    config = RunConfig(thread_id="t", deps=Facts(reader="Ada"))
    chunks: list[Message] = []
    async for event in agent.astream({"messages": [HumanMessage("When to water?")]}, config):
        if isinstance(event, MessageDelta):
            chunks.append(event.chunk)
    assert seen == ["For Ada: When to water?"]
    # the last streamed chunk carries the sources, and the saved reply keeps them
    assert chunks[-1].text() == "" and annotations(chunks[-1]) == [CITED]
    snapshot = await agent.aget_state(config)
    assert snapshot is not None
    question, reply = snapshot.state.context
    assert question.text() == "When to water?"  # what is saved is what the user wrote
    assert reply.text() == "In the evening." and annotations(reply) == [CITED]
    assert not reply.delta


async def test_without_deps_or_with_passages_off_nothing_is_added_or_cited() -> None:
    for deps in (None, Facts(reader="Ada", passages=False)):
        seen: list[str] = []

        def answer(messages: Sequence[Message], seen: list[str] = seen) -> dict[str, Any]:
            seen.append(messages[-1].text())
            return {"text": "Hello."}

        agent = create_agent(ScriptedChatModel(answer), context_hook=put_note)
        done = await agent.ainvoke({"messages": [HumanMessage("Hi")]}, RunConfig(deps=deps))
        assert seen == ["Hi"]
        assert annotations(done.context[-1]) == []


async def test_a_reply_that_calls_a_tool_cites_nothing_and_the_hook_sees_the_tools() -> None:
    offered: list[list[str]] = []

    async def note_tools(request: ModelRequest) -> ModelInput | None:
        offered.append([t.name for t in request.tools])
        return ModelInput(request.messages, [CITED])

    model = ScriptedChatModel([{"tool_calls": [{"name": "add", "args": {"a": 1, "b": 2}}]}, "3"])
    agent = create_agent(model, [add], context_hook=note_tools)
    done = await agent.ainvoke({"messages": [HumanMessage("1+2?")]})
    calling, _, final = done.context[1:]
    assert calling.tool_calls() and annotations(calling) == []
    assert final.text() == "3" and annotations(final) == [CITED]
    assert offered == [["add"], ["add"]]


async def test_chained_hooks_each_see_what_the_one_before_left_and_the_model_called() -> None:
    seen: list[str] = []
    models: list[str | None] = []

    async def mark(request: ModelRequest) -> ModelInput | None:
        models.append(request.model.spec if request.model else None)
        sent = list(request.messages)
        sent[-1] = sent[-1].model_copy(
            update={"content": [TextBlock(text=f"Noted. {sent[-1].text()}")]}
        )
        return ModelInput(sent, (), {"noted": True})

    def answer(messages: Sequence[Message]) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "Hello."}

    info = ModelInfo(spec="openai:x@http://127.0.0.2/v1", name="x", provider="openai")
    agent = create_agent(
        ScriptedChatModel(answer, info=info), context_hook=chain_hooks(put_note, mark)
    )
    done = await agent.ainvoke(
        {"messages": [HumanMessage("Hi")]}, RunConfig(deps=Facts(reader="Ada"))
    )
    assert seen == ["Noted. For Ada: Hi"]
    assert models == ["openai:x@http://127.0.0.2/v1"]
    question, reply = done.context
    assert question.text() == "Hi"
    assert annotations(reply) == [CITED]  # the first hook's sources
    assert reply.metadata["noted"] is True  # the second hook's metadata, kept on the reply


def test_a_chat_model_declares_what_it_is() -> None:
    class Nameless:
        async def agenerate(self, messages: Any, **kwargs: Any) -> Message:
            raise NotImplementedError

        def astream(self, messages: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    info = ModelInfo(spec="s", name="s", provider="s")
    assert isinstance(ScriptedChatModel(["ok"], info=info), ChatModel)
    assert not isinstance(Nameless(), ChatModel)


async def test_what_the_hook_adds_is_made_room_for_when_the_context_is_trimmed() -> None:
    """A long history trimmed to the model's window: the passages the hook puts before the
    question, and the summary of the dropped messages, are counted too, so what is sent still
    leaves the reply its room; the oldest kept messages give way, summed up."""
    sent: list[list[Message]] = []

    def answer(messages: Sequence[Message]) -> dict[str, Any]:
        sent.append(list(messages))
        return {"text": "Noted."}

    async def passages(request: ModelRequest) -> ModelInput:
        messages = list(request.messages)
        question = messages[-1]
        text = "Passages: " + "the lighthouse keeper writes poems. " * 60 + question.text()
        messages[-1] = question.model_copy(update={"content": [TextBlock(text=text)]})
        return ModelInput(messages, [CITED])

    info = ModelInfo(spec="scripted", name="scripted", provider="scripted", context_window=3000)
    model = ScriptedChatModel(answer, info=info)
    agent = create_agent(model, context_hook=passages, trim_context=True)
    history = [HumanMessage(f"Line {n}: " + "words and more words. " * 30) for n in range(40)]
    done = await agent.ainvoke({"messages": [*history, HumanMessage("Who writes poems?")]})
    messages = sent[-1]
    assert messages[-1].text().startswith("Passages: ")
    assert messages[-1].text().endswith("Who writes poems?")
    assert "Summary of the earlier conversation" in messages[0].text()
    assert sum(map(estimate_tokens, messages)) + 1024 <= 3000
    assert annotations(done.context[-1]) == [CITED]
