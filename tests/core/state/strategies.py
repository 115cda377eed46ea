"""Hypothesis strategies for messages, blocks and states.

Floats are finite (NaN never equals itself, and JSON has no infinities); text is any unicode
that is valid (no lone surrogates); ids and step counts fit in a 64-bit integer.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from app.core.state import (
    AgentState,
    AnnotationBlock,
    AnnotationRef,
    AudioBlock,
    DataBlock,
    DocumentBlock,
    ErrorBlock,
    ExecMeta,
    ImageBlock,
    Interrupt,
    MediaRef,
    Message,
    PendingTask,
    ReasoningBlock,
    TextBlock,
    TokenUsages,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
)


def examples(n: int) -> settings:
    """Settings for a property test: ``n`` examples, no deadline (the machine may be busy)."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


floats = st.floats(allow_nan=False, allow_infinity=False)
small_text = st.text(max_size=20)
opt_text = st.none() | small_text
ints = st.integers() | st.integers(min_value=-(2**70), max_value=2**70)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | ints | floats | small_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(small_text, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(small_text, json_values, max_size=4)


@st.composite
def media_refs(draw: st.DrawFn) -> MediaRef:
    """A media reference of any kind, with the field its kind needs."""
    kind = draw(st.sampled_from(["url", "data", "file_id"]))
    needed = {"url": "url", "data": "data_base64", "file_id": "file_id"}[kind]
    fields: dict[str, Any] = {name: draw(opt_text) for name in ("url", "data_base64", "file_id")}
    fields[needed] = draw(small_text)
    return MediaRef(
        kind=kind,
        mime_type=draw(opt_text),
        filename=draw(opt_text),
        size_bytes=draw(st.none() | st.integers(min_value=0)),
        sha256=draw(opt_text),
        **fields,
    )


annotation_refs = st.builds(
    AnnotationRef,
    url=opt_text,
    title=opt_text,
    start_index=st.none() | st.integers(),
    end_index=st.none() | st.integers(),
    snippet=opt_text,
)

opt_floats = st.none() | floats

blocks = st.one_of(
    st.builds(TextBlock, text=st.text(), annotations=st.lists(annotation_refs, max_size=2)),
    st.builds(
        ImageBlock,
        media=media_refs(),
        alt_text=opt_text,
        bbox=st.none() | st.lists(floats, min_size=4, max_size=4),
    ),
    st.builds(
        AudioBlock,
        media=media_refs(),
        transcript=opt_text,
        sample_rate=st.none() | st.integers(),
        channels=st.none() | st.integers(),
        duration_s=opt_floats,
    ),
    st.builds(
        VideoBlock,
        media=media_refs(),
        thumbnail=st.none() | media_refs(),
        duration_s=opt_floats,
    ),
    st.builds(
        DocumentBlock,
        media=media_refs(),
        text=opt_text,
        pages=st.none() | st.lists(st.integers(), max_size=4),
        excerpt=opt_text,
        title=opt_text,
    ),
    st.builds(
        DataBlock,
        mime_type=small_text,
        data_base64=opt_text,
        media=st.none() | media_refs(),
        data=json_values,
    ),
    st.builds(
        ToolCallBlock,
        id=small_text,
        name=small_text,
        args=json_objects,
        tool_type=st.sampled_from([None, "web_search", "file_search", "computer_use"]),
        partial_args=opt_text,
        index=st.none() | st.integers(),
    ),
    st.builds(
        ToolResultBlock,
        call_id=small_text,
        output=json_values,
        status=st.sampled_from(["completed", "error"]),
        name=opt_text,
    ),
    st.builds(ReasoningBlock, text=st.text(), signature=opt_text),
    st.builds(ErrorBlock, error=st.text(), tool_call_id=opt_text, code=opt_text),
    st.builds(AnnotationBlock, annotation=annotation_refs),
)

opt_count = st.none() | st.integers()
usages = st.builds(
    TokenUsages,
    completion_tokens=st.integers(),
    prompt_tokens=st.integers(),
    total_tokens=st.integers(),
    reasoning_tokens=st.integers(),
    cache_creation_input_tokens=st.integers(),
    cache_read_input_tokens=st.integers(),
    image_tokens=opt_count,
    audio_tokens=opt_count,
)

roles = st.sampled_from(["user", "assistant", "system", "tool"])
int64s = st.integers(min_value=-(2**63), max_value=2**63 - 1)  # what SQLite keeps as a number
message_ids = small_text | int64s

messages = st.builds(
    Message,
    message_id=message_ids,
    role=roles,
    content=st.lists(blocks, max_size=4),
    delta=st.booleans(),
    tools_calls=st.none() | st.lists(json_objects, max_size=2),
    reasoning=opt_text,
    timestamp=opt_floats,
    metadata=json_objects,
    usages=st.none() | usages,
    raw=st.none() | json_objects,
)

exec_metas = st.builds(
    ExecMeta,
    current_node=small_text,
    step=int64s,
    status=st.sampled_from(["idle", "running", "interrupted", "stopped", "completed", "error"]),
    stop_requested=st.booleans(),
    error=opt_text,
    thread_id=opt_text,
    next_tasks=st.lists(st.builds(PendingTask, node=small_text, task_id=small_text), max_size=2),
    interrupts=st.lists(
        st.builds(Interrupt, id=small_text, node=small_text, value=json_values, step=int64s),
        max_size=2,
    ),
    resume=json_objects,
)

agent_states = st.builds(
    AgentState,
    context=st.lists(messages, max_size=4),
    context_summary=opt_text,
    execution_meta=exec_metas,
)


def split_text(draw: st.DrawFn, text: str, parts: int) -> list[str]:
    """Split ``text`` into ``parts`` pieces at arbitrary places (pieces may be empty)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=parts - 1, max_size=parts - 1)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def split_count(draw: st.DrawFn, total: int | None, parts: int) -> list[int | None]:
    """Split a count into ``parts`` integers that sum to it (``None`` stays ``None``)."""
    if total is None:
        return [None] * parts
    shares = draw(st.lists(st.integers(-(10**6), 10**6), min_size=parts - 1, max_size=parts - 1))
    return [*shares, total - sum(shares)]


def tool_call_json(args: dict[str, Any]) -> str:
    """The argument text a provider would stream for ``args``."""
    return json.dumps(args, ensure_ascii=False)
