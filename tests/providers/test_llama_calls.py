"""How a local model's tool calls are held to shape and read back, without running a model:
the grammar's JSON strings, the reply router, and the first-token nudge."""

from __future__ import annotations

import numpy as np
from llama_cpp.llama_grammar import LlamaGrammar

from app.core.models.protocol import ToolSpec
from app.providers._llama_grammar import first_token_bias, tools_grammar
from app.providers._llama_reply import ReplyRouter

CALC = ToolSpec(
    name="calculate",
    parameters={"type": "object", "properties": {"expression": {"type": "string"}}},
)


def test_call_strings_cannot_hold_raw_control_characters() -> None:
    grammar = tools_grammar([CALC], required=False)
    [char] = [line for line in grammar.splitlines() if line.startswith("char ::=")]
    assert char.startswith('char ::= [^"\\\\\\x00-\\x1F] |')
    LlamaGrammar.from_string(grammar, verbose=False)  # llama.cpp accepts it


def test_a_closing_tag_inside_a_json_string_does_not_end_the_call() -> None:
    router = ReplyRouter("m" * 12, tools_offered=True)
    reply = (
        '<tool_call>{"name": "calculate", "arguments": {"expression": "1 + 1 </tool_call> x"}}'
        "</tool_call>"
    )
    for piece in (reply[:7], reply[7:40], reply[40:]):
        assert router.feed(piece) == ""
    [call] = router.finish()
    assert call.type == "tool_call"
    assert call.name == "calculate"
    assert call.args == {"expression": "1 + 1 </tool_call> x"}
    assert call.partial_args is None


def test_an_unclosed_call_stays_partial() -> None:
    router = ReplyRouter("m" * 12, tools_offered=True)
    router.feed('<tool_call>{"name": "calculate", "arguments": {"expression": "1 +')
    [call] = router.finish()
    assert call.type == "tool_call" and call.partial_args is not None


def test_the_nudge_applies_to_the_first_token_only() -> None:
    nudge = first_token_bias([1, 3], prompt_len=4, bias=2.5)
    scores = np.zeros(5, dtype=np.single)
    first = nudge(np.zeros(4, dtype=np.intc), scores)
    assert first.tolist() == [0.0, 2.5, 0.0, 2.5, 0.0]
    assert scores.tolist() == [0.0] * 5, "the scores passed in are not changed"
    later = nudge(np.zeros(5, dtype=np.intc), scores)
    assert later.tolist() == [0.0] * 5
