"""Messages and state: the reducer and the persistence door on 10,000 realistic messages.

Each figure is per message (best of a few runs), next to LangGraph's ``add_messages`` and its
checkpoint serializer measured in the same run on equivalent LangChain messages.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from app.core.state import Message, TextBlock, TokenUsages, ToolCallBlock, add_messages
from app.core.state.serde import dump_messages, load_messages
from bench.table import Row

N = 10_000
REPEATS = 3
REDUCER_TARGET_US = 20.0
ROUND_TRIP_TARGET_US = 50.0
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "parley",
    "keeps",
    "every",
    "message",
]


def _body(i: int) -> str:
    text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(40))
    return text[:200]


def _has_call(i: int) -> bool:
    return i % 4 == 3


def parley_messages(n: int, tag: str = "") -> list[Message]:
    """``n`` messages of ~200 characters; every fourth is an assistant turn with a tool call."""
    out = []
    for i in range(n):
        if _has_call(i):
            out.append(
                Message(
                    message_id=f"m{i}",
                    role="assistant",
                    content=[
                        TextBlock(text=_body(i) + tag),
                        ToolCallBlock(
                            id=f"call{i}", name="get_weather", args={"city": "Tokyo", "days": i}
                        ),
                    ],
                    usages=TokenUsages(prompt_tokens=i, completion_tokens=20, total_tokens=i + 20),
                )
            )
        else:
            role = "user" if i % 2 == 0 else "assistant"
            out.append(Message.text_message(_body(i) + tag, role=role, message_id=f"m{i}"))
    return out


def langgraph_messages(n: int, tag: str = "") -> list[Any]:
    """The same conversation as LangChain messages."""
    from langchain_core.messages import AIMessage, HumanMessage

    out: list[Any] = []
    for i in range(n):
        if _has_call(i):
            out.append(
                AIMessage(
                    id=f"m{i}",
                    content=_body(i) + tag,
                    tool_calls=[
                        {
                            "id": f"call{i}",
                            "name": "get_weather",
                            "args": {"city": "Tokyo", "days": i},
                        }
                    ],
                    usage_metadata={"input_tokens": i, "output_tokens": 20, "total_tokens": i + 20},
                )
            )
        elif i % 2 == 0:
            out.append(HumanMessage(id=f"m{i}", content=_body(i) + tag))
        else:
            out.append(AIMessage(id=f"m{i}", content=_body(i) + tag))
    return out


def best_us(fn: Callable[[], object], per: int, repeats: int = REPEATS) -> float:
    """Best of ``repeats`` runs of ``fn``, in microseconds per item."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e6 / per


def _one_at_a_time(reducer: Callable[[Any, Any], Any], start: list[Any], items: list[Any]) -> Any:
    state = start
    for item in items:
        state = reducer(state, item)
    return state


def _measure(
    reducer: Callable[[Any, Any], Any], items: list[Any], updates: list[Any], repeats: int
) -> dict[str, float]:
    full = reducer([], items)
    return {
        "append": best_us(lambda: _one_at_a_time(reducer, [], items), len(items), repeats),
        "upsert": best_us(lambda: _one_at_a_time(reducer, full, updates), len(updates), repeats),
        "batch": best_us(lambda: reducer([], items), len(items)),
    }


def run() -> list[Row]:
    """Measure the reducer and the persistence door, Parley beside LangGraph."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.graph.message import add_messages as lg_add_messages

    ours = _measure(add_messages, parley_messages(N), parley_messages(N, " (edited)"), REPEATS)
    # LangGraph's reducer rebuilds its id index on every call (~1 ms per call at this size),
    # so its one-at-a-time runs are measured once to keep the benchmark short.
    theirs = _measure(lg_add_messages, langgraph_messages(N), langgraph_messages(N, " (edited)"), 1)

    messages = parley_messages(N)
    # What a reducer that copies its input to leave it unchanged pays per call at the full size
    # (a new N-item list, and freeing the previous one); Parley's lists share their storage.
    floor_us = best_us(lambda: _one_at_a_time(lambda old, _: list(old), messages, messages), N)
    data = dump_messages(messages)
    assert load_messages(data) == messages
    dump_us = best_us(lambda: dump_messages(messages), N)
    load_us = best_us(lambda: load_messages(data), N)

    serde = JsonPlusSerializer()
    lg_messages = langgraph_messages(N)
    lg_data = serde.dumps_typed(lg_messages)
    lg_dump_us = best_us(lambda: serde.dumps_typed(lg_messages), N)
    lg_load_us = best_us(lambda: serde.loads_typed(lg_data), N)

    peer = "LangGraph"
    reducer_target = f"< {REDUCER_TARGET_US:g} µs"
    rows = [
        Row(
            "state",
            f"add_messages: append 1 of {N:,} (one call each)",
            ours["append"],
            "µs/msg",
            theirs["append"],
            peer,
            reducer_target,
            ours["append"] < REDUCER_TARGET_US,
        ),
        Row(
            "state",
            f"add_messages: upsert 1 of {N:,} (one call each)",
            ours["upsert"],
            "µs/msg",
            theirs["upsert"],
            peer,
            reducer_target,
            ours["upsert"] < REDUCER_TARGET_US,
        ),
        Row(
            "state",
            f"add_messages: batch of {N:,}",
            ours["batch"],
            "µs/msg",
            theirs["batch"],
            peer,
            reducer_target,
            ours["batch"] < REDUCER_TARGET_US,
        ),
        Row("state", f"floor: copy a {N:,}-item list per call", floor_us, "µs/call"),
        Row("state", f"serialise {N:,} messages", dump_us, "µs/msg", lg_dump_us, peer),
        Row("state", f"parse {N:,} messages", load_us, "µs/msg", lg_load_us, peer),
        Row(
            "state",
            f"round trip {N:,} messages ({len(data) / N:.0f} B/msg)",
            dump_us + load_us,
            "µs/msg",
            lg_dump_us + lg_load_us,
            peer,
            f"< {ROUND_TRIP_TARGET_US:g} µs",
            dump_us + load_us < ROUND_TRIP_TARGET_US,
        ),
    ]
    return rows
