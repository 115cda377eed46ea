"""The message model: blocks in one tagged union, conveniences, and the second seed's names."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import TypeAdapter, ValidationError

from app.core.state import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    AIMessageChunk,
    ContentBlock,
    HumanMessage,
    MediaRef,
    Message,
    MessagesState,
    RemoveMessage,
    SystemMessage,
    TextBlock,
    TokenUsages,
    ToolCallBlock,
    ToolMessage,
    ToolResultBlock,
    add_messages,
)

BLOCK_TAGS = {
    "TextBlock": "text",
    "ImageBlock": "image",
    "AudioBlock": "audio",
    "VideoBlock": "video",
    "DocumentBlock": "document",
    "DataBlock": "data",
    "ToolCallBlock": "tool_call",
    "ToolResultBlock": "tool_result",
    "ReasoningBlock": "reasoning",
    "ErrorBlock": "error",
    "AnnotationBlock": "annotation",
}


def test_every_block_is_in_the_union_with_its_own_literal_tag() -> None:
    union, *_ = get_args(ContentBlock)
    members = {cls.__name__: cls for cls in get_args(union)}
    assert set(members) == set(BLOCK_TAGS)
    for name, tag in BLOCK_TAGS.items():
        field = members[name].model_fields["type"]
        assert get_args(field.annotation) == (tag,)
        assert field.default == tag


def test_the_union_reads_each_block_back_as_its_class() -> None:
    adapter: TypeAdapter[ContentBlock] = TypeAdapter(ContentBlock)
    block = adapter.validate_python({"type": "tool_call", "id": "c1", "name": "f"})
    assert isinstance(block, ToolCallBlock)
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        adapter.validate_python({"type": "sticker"})


@pytest.mark.parametrize(
    ("kind", "missing"), [("url", "url"), ("data", "data_base64"), ("file_id", "file_id")]
)
def test_media_ref_needs_the_field_of_its_kind(kind: str, missing: str) -> None:
    with pytest.raises(ValidationError, match=missing):
        MediaRef(kind=kind)  # type: ignore[arg-type]


def test_text_joins_only_text_blocks() -> None:
    msg = Message(
        role="assistant",
        content=[
            TextBlock(text="a"),
            ToolCallBlock(id="c", name="f"),
            TextBlock(text="b"),
        ],
    )
    assert msg.text() == "ab"
    assert [c.id for c in msg.tool_calls()] == ["c"]
    assert Message(role="user").text() == ""


def test_a_string_content_becomes_one_text_block() -> None:
    assert Message(role="user", content="hi").content == [TextBlock(text="hi")]  # type: ignore[arg-type]
    assert Message(role="user", content="").content == []  # type: ignore[arg-type]


def test_a_message_needs_a_known_role() -> None:
    with pytest.raises(ValidationError, match="role"):
        Message(content=[])  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="role"):
        Message(role="robot", content=[])  # type: ignore[arg-type]


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="colour"):
        Message(role="user", colour="red")  # type: ignore[call-arg]


def test_usages_sum_field_by_field_and_none_stays_none() -> None:
    a = TokenUsages(prompt_tokens=3, completion_tokens=1, total_tokens=4, image_tokens=None)
    b = TokenUsages(prompt_tokens=0, completion_tokens=2, total_tokens=2, image_tokens=None)
    total = a + b
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (3, 3, 6)
    assert total.image_tokens is None
    assert total.audio_tokens == 0
    assert (a + TokenUsages(image_tokens=5)).image_tokens == 5


class TestSecondSeedNames:
    """``HumanMessage`` & co. build plain ``Message``s; ``isinstance`` asks about the role."""

    def test_constructors(self) -> None:
        human = HumanMessage("Close ticket T-42")
        assert type(human) is Message
        assert (human.role, human.text(), human.delta) == ("user", "Close ticket T-42", False)
        assert AIMessage("result").role == "assistant"
        assert SystemMessage("Be safe.").role == "system"
        chunk = AIMessageChunk("res")
        assert (chunk.role, chunk.delta) == ("assistant", True)
        tool = ToolMessage("Sunny", tool_call_id="call_1")
        assert tool.role == "tool"
        assert tool.content == [ToolResultBlock(call_id="call_1", output="Sunny")]
        failed = ToolMessage("boom", tool_call_id="call_1", status="error")
        assert failed.tool_results()[0].status == "error"

    def test_isinstance_follows_role(self) -> None:
        assert isinstance(HumanMessage("x"), HumanMessage)
        assert not isinstance(HumanMessage("x"), AIMessage)
        assert isinstance(Message.text_message("x", role="assistant"), AIMessage)
        assert isinstance(AIMessageChunk("x"), AIMessage)
        assert not isinstance(AIMessage("x"), AIMessageChunk)
        assert isinstance(ToolMessage("x", tool_call_id="c"), ToolMessage)
        assert isinstance(SystemMessage("x"), SystemMessage)
        assert not isinstance("x", HumanMessage)

    def test_fields_pass_through(self) -> None:
        msg = AIMessage("x", message_id="m1", metadata={"k": 1})
        assert (msg.message_id, msg.metadata) == ("m1", {"k": 1})

    def test_streamed_chunks_with_one_id_merge(self) -> None:
        merged = AIMessageChunk("res", message_id="m") + AIMessageChunk("ult", message_id="m")
        assert merged.text() == "result"
        assert isinstance(merged, AIMessageChunk)

    def test_chunks_of_different_messages_do_not_merge(self) -> None:
        with pytest.raises(ValueError, match="different messages"):
            AIMessageChunk("a", message_id="1") + AIMessageChunk("b", message_id="2")

    def test_messages_state_and_remove_message(self) -> None:
        state = MessagesState(messages=[HumanMessage("hi", message_id="h")])
        assert state.messages == state.context
        assert state.messages[0].text() == "hi"
        after = state.with_update({"messages": [AIMessage("hello", message_id="a")]})
        assert [m.message_id for m in after.messages] == ["h", "a"]
        after = after.with_update({"messages": [RemoveMessage(id="h")]})
        assert [m.message_id for m in after.messages] == ["a"]
        assert add_messages(after.messages, RemoveMessage(REMOVE_ALL_MESSAGES)) == []
