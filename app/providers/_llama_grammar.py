"""GBNF grammars that keep a local model's reply well-formed: text or valid tool calls."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from llama_cpp.llama_grammar import json_schema_to_gbnf

from app.core.models.protocol import GenerationConfig, ToolSpec
from app.providers._llama_template import CALL_CLOSE, CALL_OPEN

_ROOT = re.compile(r"(?<![\w-])root(?![\w-])")
_CHAR_RULE = 'char ::= [^"\\\\] |'
_STRICT_CHAR_RULE = 'char ::= [^"\\\\\\x00-\\x1F] |'


def call_schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """JSON Schema of one call: ``{"name": <one of the tools>, "arguments": <its schema>}``."""
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"name": {"const": t.name}, "arguments": t.parameters},
            "required": ["name", "arguments"],
        }
        for t in tools
    ]
    return options[0] if len(options) == 1 else {"anyOf": options}


def tools_grammar(tools: Sequence[ToolSpec], *, required: bool, max_calls: int = 4) -> str:
    """A grammar for a reply that is one to ``max_calls`` tool calls, or (unless ``required``)
    plain text that does not start with ``<``."""
    body = json_schema_to_gbnf(json.dumps(call_schema(tools)), prop_order=["name", "arguments"])
    body = _ROOT.sub("tool-call-body", body)
    # JSON strings hold no raw control characters: a newline must end the string or be escaped,
    # which also stops a small model from writing a whole essay into one argument
    body = body.replace(_CHAR_RULE, _STRICT_CHAR_RULE)
    more = ' ( "\\n" tool-call )?' * (max_calls - 1)
    rules = [
        f"tool-calls ::= tool-call{more}",
        f'tool-call ::= "{CALL_OPEN}" tool-call-body "{CALL_CLOSE}"',
        "free-text ::= [^<\\x00] [^\\x00]*",
        "root ::= tool-calls" if required else "root ::= tool-calls | free-text",
    ]
    return body + "\n" + "\n".join(rules) + "\n"


def schema_grammar(schema: dict[str, Any]) -> str:
    """A grammar for a reply that is one JSON value matching ``schema``."""
    grammar: str = json_schema_to_gbnf(json.dumps(schema))
    return grammar


def required_call(cfg: GenerationConfig) -> bool:
    """Whether ``cfg`` demands a tool call (``required`` or a tool's name) rather than letting
    the model choose."""
    return cfg.tool_choice not in ("auto", "none")


def call_start_ids(llama: Any) -> list[int]:
    """Ids of the tokens a reply can start a ``<tool_call>`` with (their text is a prefix of it,
    or starts with it)."""
    model = llama._model
    ids = []
    for i in range(llama.n_vocab()):
        text = model.token_get_text(i)
        if text and (CALL_OPEN.startswith(text) or text.startswith(CALL_OPEN)):
            ids.append(i)
    return ids


Scores = npt.NDArray[np.single]


def first_token_bias(
    ids: Sequence[int], prompt_len: int, bias: float
) -> Callable[[npt.NDArray[np.intc], Scores], Scores]:
    """A logits processor adding ``bias`` to ``ids`` at the reply's first token only."""
    index = np.asarray(ids, dtype=np.intp)

    def apply(input_ids: npt.NDArray[np.intc], scores: Scores) -> Scores:
        if len(input_ids) != prompt_len:
            return scores
        out = np.copy(scores)
        out[index] += bias
        return out

    return apply
