"""Render a conversation with the chat template stored in a GGUF file.

Falls back to ChatML when the file has none (and says so), folds the system prompt into the first
user turn when the template would drop it, and offers tools in the template when it supports
them or in the system prompt when it does not.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from app.core.models.protocol import ToolSpec
from app.providers._openai_messages import function_tools
from app.providers.recipes import GENERIC, PromptRecipe

log = logging.getLogger(__name__)

CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)
CALL_OPEN = "<tool_call>"
CALL_CLOSE = "</tool_call>"
_PROBE = "PARLEY-SYSTEM-PROBE"

TOOL_INSTRUCTIONS = (
    "You can call tools. To call one, reply with nothing but\n"
    f'{CALL_OPEN}{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}{CALL_CLOSE}\n'
    "Otherwise answer in plain text. The tools:\n"
)


@dataclass
class ChatTemplate:
    """A chat template and what it can do; ``note`` says when Parley had to work around it."""

    source: str
    eos_token: str
    bos_token: str
    is_fallback: bool = False
    keeps_system: bool = True
    takes_tools: bool = False
    takes_tool_role: bool = False
    note: str = ""
    _compiled: Jinja2ChatFormatter | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_metadata(
        cls, metadata: dict[str, str], eos: str, bos: str, *, file_template: bool = True
    ) -> ChatTemplate:
        """Read the template from GGUF metadata and probe what it supports.

        With ``file_template`` False, plain ChatML is used whatever the file holds."""
        source = metadata.get("tokenizer.chat_template") if file_template else None
        fallback = not source
        if fallback and file_template:
            log.warning("the model file has no chat template; using ChatML")
        tpl = cls(
            source=source or CHATML,
            eos_token=eos if not fallback else "<|im_end|>",
            bos_token=bos,
            is_fallback=fallback and file_template,
        )
        tpl.takes_tools = "tools" in tpl.source
        tpl.takes_tool_role = "'tool'" in tpl.source or '"tool"' in tpl.source
        tpl.keeps_system = tpl._probe_system()
        notes = []
        if fallback and file_template:
            notes.append("the model file has no chat template, so ChatML is used")
        if not tpl.keeps_system:
            notes.append("the template ignores system prompts, so it is put in the first turn")
        tpl.note = "; ".join(notes)
        return tpl

    def _formatter(self) -> Jinja2ChatFormatter:
        # Compiling the template takes milliseconds: do it once per template.
        if self._compiled is None:
            self._compiled = Jinja2ChatFormatter(self.source, self.eos_token, self.bos_token)
        return self._compiled

    def _probe_system(self) -> bool:
        try:
            probe = self._formatter()(
                messages=[
                    {"role": "system", "content": _PROBE},
                    {"role": "user", "content": "hi"},
                ]
            )
        except Exception:
            return False
        return _PROBE in probe.prompt

    def render(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[ToolSpec],
        recipe: PromptRecipe = GENERIC,
    ) -> str:
        """The prompt text for ``messages`` (role/content dicts), ending with the reply's start,
        shaped by ``recipe`` (system turn, where tool instructions go)."""
        msgs = [dict(m) for m in messages]
        if recipe.after_tools != "turns" and (restated := _restated(msgs, recipe)) is not None:
            msgs, tools = restated, ()  # the answer turn: the outputs are in, nothing to list
        if recipe.system == "drop":
            msgs = [m for m in msgs if m["role"] != "system"]
        tool_defs = function_tools(tools)
        native_tools = bool(tools) and self.takes_tools and recipe.tools == "template"
        if tools and not native_tools:
            listing = "\n".join(json.dumps(d["function"], ensure_ascii=False) for d in tool_defs)
            if recipe.tool_turn == "user":
                msgs = _before_last_user(msgs, TOOL_INSTRUCTIONS + listing)
            else:
                msgs = _with_system(msgs, TOOL_INSTRUCTIONS + listing)
        if not self.takes_tool_role:
            msgs = [
                {"role": "user", "content": m["content"]} if m["role"] == "tool" else m
                for m in msgs
            ]
        if recipe.system != "keep" or not self.keeps_system:
            msgs = _fold_system(msgs)
        msgs = _merge_same_roles(msgs)
        kwargs: dict[str, Any] = {"tools": tool_defs} if native_tools else {}
        return self._formatter()(messages=msgs, **kwargs).prompt  # type: ignore[arg-type]


def _restated(msgs: list[dict[str, Any]], recipe: PromptRecipe) -> list[dict[str, Any]] | None:
    """When the conversation ends with tool results, those results as the recipe restates
    them (``None`` otherwise): ``plain``, each output alone as the last user turn; ``facts``,
    the request restated in one user turn after the outputs."""
    end = len(msgs)
    while end and msgs[end - 1]["role"] == "tool":
        end -= 1
    if end == len(msgs):
        return None
    if recipe.after_tools == "plain":
        outputs = [out for m in msgs[end:] for _name, out in m.get("tool_results", ())]
        return [*msgs[:end], {"role": "user", "content": "\n\n".join(outputs)}]
    ask = next((i for i in range(end - 1, -1, -1) if msgs[i]["role"] == "user"), None)
    if ask is None:
        return None
    facts = [
        f"- {name or 'tool'}: {output}"
        for m in msgs[ask + 1 :]
        if m["role"] == "tool"
        for name, output in m.get("tool_results", ())
    ]
    content = "Facts:\n" + "\n".join(facts) + f"\n\nQuestion: {msgs[ask]['content']}"
    return [*msgs[:ask], {"role": "user", "content": content}]


def _before_last_user(msgs: list[dict[str, Any]], extra: str) -> list[dict[str, Any]]:
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i]["role"] == "user":
            out = list(msgs)
            out[i] = {"role": "user", "content": f"{extra}\n\n{msgs[i]['content']}"}
            return out
    return [*msgs, {"role": "user", "content": extra}]


def _with_system(msgs: list[dict[str, Any]], extra: str) -> list[dict[str, Any]]:
    if msgs and msgs[0]["role"] == "system":
        first = {"role": "system", "content": f"{msgs[0]['content']}\n\n{extra}"}
        return [first, *msgs[1:]]
    return [{"role": "system", "content": extra}, *msgs]


def _fold_system(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    system = "\n\n".join(m["content"] for m in msgs if m["role"] == "system")
    rest = [m for m in msgs if m["role"] != "system"]
    if not system:
        return rest
    for i, m in enumerate(rest):
        if m["role"] == "user":
            rest[i] = {"role": "user", "content": f"{system}\n\n{m['content']}"}
            return rest
    return [{"role": "user", "content": system}, *rest]


def _merge_same_roles(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in msgs:
        if out and out[-1]["role"] == m["role"] and m["role"] != "tool":
            out[-1] = {"role": m["role"], "content": f"{out[-1]['content']}\n\n{m['content']}"}
        else:
            out.append(m)
    return out
