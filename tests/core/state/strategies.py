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


def messages_of(
    ids: st.SearchStrategy[str | int] = message_ids,
    content: st.SearchStrategy[Any] = blocks,
    metadata: st.SearchStrategy[dict[str, Any]] = json_objects,
) -> st.SearchStrategy[Message]:
    """Messages with every field drawn; ids, content blocks and metadata from the given ones."""
    return st.builds(
        Message,
        message_id=ids,
        role=roles,
        content=st.lists(content, max_size=4),
        delta=st.booleans(),
        tools_calls=st.none() | st.lists(json_objects, max_size=2),
        reasoning=opt_text,
        timestamp=opt_floats,
        metadata=metadata,
        usages=st.none() | usages,
        raw=st.none() | json_objects,
    )


messages = messages_of()

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


def _one_delta_per_block(events: list[Any]) -> list[Any]:
    """Join a chunk's adjacent pieces of one block, as a provider sends one delta per block."""
    out: list[Any] = []
    for event in events:
        last = out[-1] if out else None
        if type(event) is type(last) and isinstance(event, TextBlock | ReasoningBlock):
            out[-1] = event.model_copy(update={"text": last.text + event.text})
        elif isinstance(event, ToolCallBlock) and isinstance(last, ToolCallBlock):
            if last.id == event.id:
                joined = (last.partial_args or "") + (event.partial_args or "")
                out[-1] = ToolCallBlock(
                    id=last.id,
                    name=last.name,
                    tool_type=last.tool_type,
                    args=last.args,
                    partial_args=joined or None,
                )
            else:
                out.append(event)
        else:
            out.append(event)
    return out


@st.composite
def streamed(draw: st.DrawFn) -> tuple[Message, list[Message]]:
    """A whole assistant message and the ``delta=True`` chunks a provider would stream for it.

    Text and reasoning are split anywhere, tool-call arguments arrive as JSON fragments split
    anywhere, usages are split into parts that sum up, metadata keys are spread over chunks.
    """
    n = draw(st.integers(1, 6))
    message_id = draw(st.text(min_size=1, max_size=8) | int64s)
    thinking = draw(st.none() | st.text())
    body = draw(st.text())
    calls = [
        ToolCallBlock(
            id=call_id,
            name=draw(st.text(min_size=1, max_size=8)),
            args=draw(json_objects),
            tool_type=draw(st.sampled_from([None, "web_search"])),
        )
        for call_id in draw(st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=3))
    ]
    content: list[Any] = []
    events: list[Any] = []
    if thinking is not None:
        content.append(ReasoningBlock(text=thinking))
        pieces = split_text(draw, thinking, draw(st.integers(1, 4)))
        events += [ReasoningBlock(text=p) for p in pieces]
    if body:
        content.append(TextBlock(text=body))
        events += [TextBlock(text=p) for p in split_text(draw, body, draw(st.integers(1, 5)))]
    for call in calls:
        content.append(call)
        fragments = split_text(draw, tool_call_json(call.args), draw(st.integers(1, 5)))
        for k, fragment in enumerate(fragments):
            events.append(
                ToolCallBlock(
                    id=call.id,
                    name=call.name if k == 0 else "",
                    tool_type=call.tool_type if k == 0 else None,
                    partial_args=fragment,
                )
            )
    whole = Message(
        message_id=message_id,
        role="assistant",
        content=content,
        reasoning=draw(opt_text),
        timestamp=draw(st.none() | floats),
        metadata=draw(json_objects),
        usages=draw(st.none() | usages),
        tools_calls=draw(st.none() | st.lists(json_objects, max_size=3)),
        raw=draw(st.none() | json_objects),
    )

    # spread each part of the whole over the n chunks
    cuts = sorted(draw(st.lists(st.integers(0, len(events)), min_size=n - 1, max_size=n - 1)))
    bounds = [0, *cuts, len(events)]
    blocks_per_chunk = [_one_delta_per_block(events[a:b]) for a, b in itertools.pairwise(bounds)]
    reasoning = [None] * n if whole.reasoning is None else split_text(draw, whole.reasoning, n)
    usage_parts: list[TokenUsages | None] = [None] * n
    if whole.usages is not None:
        split = {
            name: split_count(draw, getattr(whole.usages, name), n)
            for name in TokenUsages.model_fields
        }
        usage_parts = [TokenUsages(**{k: v[i] for k, v in split.items()}) for i in range(n)]
    owner = {key: draw(st.integers(0, n - 1)) for key in whole.metadata}
    calls_cut = sorted(
        draw(st.lists(st.integers(0, len(whole.tools_calls or [])), min_size=n, max_size=n))
    )
    calls_cut[0] = 0
    calls_bounds = [*calls_cut, len(whole.tools_calls or [])]
    chunks = []
    for i in range(n):
        chunks.append(
            Message(
                message_id=message_id,
                role="assistant",
                delta=True,
                content=blocks_per_chunk[i],
                reasoning=reasoning[i],
                timestamp=whole.timestamp
                if i == 0 or whole.timestamp is None
                else draw(st.none() | floats),
                metadata={k: v for k, v in whole.metadata.items() if owner[k] == i},
                usages=usage_parts[i],
                tools_calls=None
                if whole.tools_calls is None
                else whole.tools_calls[calls_bounds[i] : calls_bounds[i + 1]],
                raw=whole.raw if i == n - 1 else draw(st.none() | json_objects),
            )
        )
    if whole.raw is None:
        chunks = [c.model_copy(update={"raw": None}) for c in chunks]
    return whole.model_copy(update={"delta": True}), chunks
