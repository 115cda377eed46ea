"""Every code example of the state-and-messages document, run against ``app``.

Each test is one example, with the document's module paths (``tenxgraph`` -> ``app``).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.core.constants import START


def _import_state_graph() -> Any:
    # the engine is built: an example that cannot import it is a failure, never a skip
    from app.core.graph import StateGraph

    return StateGraph


def test_agent_state_has_the_three_builtin_fields() -> None:
    from app.core.state import AgentState, ExecMeta

    state = AgentState()
    assert state.context == []
    assert state.context_summary is None
    assert isinstance(state.execution_meta, ExecMeta)
    assert state.execution_meta.current_node == START
    assert set(AgentState.model_fields) == {"context", "context_summary", "execution_meta"}


def test_convenience_methods() -> None:
    from app.core.state import AgentState

    state = AgentState()
    assert state.is_running() is False
    assert state.is_interrupted() is False
    assert state.is_stopped_requested() is False
    state.advance_step()
    assert state.execution_meta.step == 1
    state.set_current_node("agent")
    assert state.execution_meta.current_node == "agent"
    state.complete()
    assert state.execution_meta.status == "completed"
    state.error("msg")
    assert state.execution_meta.status == "error"
    assert state.execution_meta.error == "msg"


def _my_state() -> type[Any]:
    from app.core.state import AgentState

    class MyState(AgentState):
        user_id: str = ""
        session_data: dict = {}  # type: ignore[type-arg]
        selected_city: str = ""

    return MyState


def test_custom_state() -> None:
    my_state = _my_state()
    state = my_state(user_id="u1")
    assert state.user_id == "u1"
    assert state.session_data == {}
    assert state.selected_city == ""
    assert state.context == []
    assert state.context_summary is None
    assert state.execution_meta.current_node == START


@pytest.mark.parametrize("as_instance", [False, True])
def test_state_graph_takes_the_custom_state(as_instance: bool) -> None:
    state_graph = _import_state_graph()
    my_state = _my_state()
    graph = state_graph(my_state() if as_instance else my_state)
    assert graph is not None


def test_creating_messages() -> None:
    from app.core.state import (
        ImageBlock,
        MediaRef,
        Message,
        TextBlock,
        ToolResultBlock,
    )

    msg = Message.text_message("Hello!")
    assert msg.role == "user"
    assert msg.text() == "Hello!"

    msg = Message.text_message("Hello!", role="user", message_id="msg-1")
    assert msg.message_id == "msg-1"

    msg = Message.tool_message(
        content=[ToolResultBlock(call_id="call_123", output="Sunny, 22°C", status="completed")],
        message_id="tr-1",
    )
    assert msg.role == "tool"
    assert msg.message_id == "tr-1"
    assert msg.tool_results()[0].output == "Sunny, 22°C"

    msg = Message(
        role="user",
        content=[
            TextBlock(text="What is this?"),
            ImageBlock(
                media=MediaRef(kind="url", url="https://example.com/img.png", mime_type="image/png")
            ),
        ],
    )
    assert [b.type for b in msg.content] == ["text", "image"]

    text = msg.text()
    assert text == "What is this?"


def test_full_message_model_fields_and_defaults() -> None:
    from app.core.state import Message

    assert list(Message.model_fields) == [
        "message_id",
        "role",
        "content",
        "delta",
        "tools_calls",
        "reasoning",
        "timestamp",
        "metadata",
        "usages",
        "raw",
    ]
    msg = Message(role="assistant", content=[])
    assert isinstance(msg.message_id, str)
    assert msg.message_id
    assert Message(role="user", content=[]).message_id != msg.message_id
    assert Message(role="user", content=[], message_id=7).message_id == 7
    assert msg.delta is False
    assert msg.tools_calls is None
    assert msg.reasoning is None
    assert isinstance(msg.timestamp, float)
    assert msg.metadata == {}
    assert msg.usages is None
    assert msg.raw is None


def test_token_usages() -> None:
    from app.core.state import TokenUsages

    usage = TokenUsages(completion_tokens=5, prompt_tokens=10, total_tokens=15)
    assert usage.reasoning_tokens == 0
    assert usage.cache_creation_input_tokens == 0
    assert usage.cache_read_input_tokens == 0
    assert usage.image_tokens == 0
    assert usage.audio_tokens == 0


def test_text_block() -> None:
    from app.core.state import AnnotationRef, TextBlock

    block = TextBlock(
        text="Here is the answer.",
        annotations=[
            AnnotationRef(url="https://source.example.com", title="Source"),
        ],
    )
    assert block.type == "text"
    assert block.annotations[0].title == "Source"


def test_image_block() -> None:
    from app.core.state import ImageBlock, MediaRef

    block = ImageBlock(
        media=MediaRef(kind="url", url="https://example.com/photo.png", mime_type="image/png"),
        alt_text="A landscape photo",
        bbox=[10.0, 20.0, 300.0, 400.0],  # [x1, y1, x2, y2] if applicable
    )
    assert block.type == "image"
    assert block.bbox == [10.0, 20.0, 300.0, 400.0]


def test_audio_block() -> None:
    from app.core.state import AudioBlock, MediaRef

    block = AudioBlock(
        media=MediaRef(kind="data", data_base64="<b64>", mime_type="audio/wav"),
        transcript="Hello, world.",  # optional pre-existing transcript
        sample_rate=16000,
        channels=1,
    )
    assert block.type == "audio"
    assert block.sample_rate == 16000


def test_video_block() -> None:
    from app.core.state import MediaRef, VideoBlock

    block = VideoBlock(
        media=MediaRef(kind="data", data_base64="<b64>", mime_type="video/mp4"),
        thumbnail=MediaRef(kind="url", url="https://example.com/thumb.jpg", mime_type="image/jpeg"),
    )
    assert block.type == "video"
    assert block.thumbnail is not None


def test_document_block() -> None:
    from app.core.state import DocumentBlock, MediaRef

    block = DocumentBlock(
        media=MediaRef(kind="file_id", file_id="doc-key", mime_type="application/pdf"),
        text="Extracted body text (optional).",
        pages=[1, 2, 3],
        excerpt="Short preview snippet.",
    )
    assert block.type == "document"
    assert block.pages == [1, 2, 3]


def test_data_block() -> None:
    from app.core.state import DataBlock, MediaRef

    block = DataBlock(
        mime_type="application/octet-stream",
        data_base64="<b64>",
        media=MediaRef(kind="file_id", file_id="data-key", mime_type="application/octet-stream"),
    )
    assert block.type == "data"


def test_tool_call_block() -> None:
    from app.core.state import ToolCallBlock

    block = ToolCallBlock(
        id="call_abc123",
        name="get_weather",
        args={"location": "Tokyo"},
        tool_type=None,  # "web_search" | "file_search" | "computer_use" | None
    )
    assert block.type == "tool_call"
    for kind in ("web_search", "file_search", "computer_use"):
        assert ToolCallBlock(id="c", name="n", tool_type=kind).tool_type == kind


def test_tool_result_block() -> None:
    from app.core.state import ToolResultBlock

    block = ToolResultBlock(
        call_id="call_abc123",  # matches ToolCallBlock.id
        output="Sunny, 22°C.",
        status="completed",  # "completed" | "error"
    )
    assert block.type == "tool_result"
    assert ToolResultBlock(call_id="c", output="boom", status="error").status == "error"


def test_reasoning_block() -> None:
    from app.core.state.message_block import ReasoningBlock

    block = ReasoningBlock(text="Let me think step by step...")
    assert block.type == "reasoning"


def test_error_block() -> None:
    from app.core.state import ErrorBlock

    block = ErrorBlock(error="Tool timed out after 30 s.", tool_call_id="call_abc123")
    assert block.type == "error"


def test_annotation_block() -> None:
    from app.core.state import AnnotationRef
    from app.core.state.message_block import AnnotationBlock

    block = AnnotationBlock(
        annotation=AnnotationRef(url="https://example.com", title="Source article")
    )
    assert block.type == "annotation"


def test_tool_result_updates_state() -> None:
    from app.core.state import AgentState
    from app.core.state.agent_state import apply_update
    from app.core.state.tool_result import ToolResult

    class MyState(AgentState):
        selected_city: str = ""

    def select_city(city: str) -> ToolResult:
        """Set the currently selected city in the workflow."""
        return ToolResult(
            message=f"City updated to '{city}'.",  # returned to the LLM
            state={"selected_city": city},  # updates MyState.selected_city
        )

    result = select_city("Tokyo")
    assert result.message == "City updated to 'Tokyo'."
    assert result.state == {"selected_city": "Tokyo"}

    before = MyState(context_summary="kept")
    after = apply_update(before, {**result.state})
    assert after.selected_city == "Tokyo"
    assert after.context_summary == "kept"
    assert before.selected_city == ""


def test_how_the_context_accumulates() -> None:
    from app.core.state import AgentState, Message, TextBlock, ToolCallBlock, ToolResultBlock
    from app.core.state.serde import dump_state, load_state

    context = [
        Message(role="user", content=[TextBlock(text="What is 2 + 2?")]),
        Message(role="assistant", content=[TextBlock(text="4.")]),
        Message(role="user", content=[TextBlock(text="Now call get_weather for Tokyo.")]),
        Message(
            role="assistant",
            content=[
                TextBlock(text="..."),
                ToolCallBlock(id="c1", name="get_weather", args={"location": "Tokyo"}),
            ],
        ),
        Message(
            role="tool",
            content=[ToolResultBlock(call_id="c1", output="Cloudy, 18°C", status="completed")],
        ),
        Message(
            role="assistant", content=[TextBlock(text="The weather in Tokyo is cloudy and 18°C.")]
        ),
    ]
    state = AgentState(context=context)
    assert load_state(dump_state(state), AgentState) == state
