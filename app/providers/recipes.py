"""Prompt recipes: how to talk to a local model so that it answers well.

A recipe says what happens to the system turn (kept, folded into the first user turn, or
dropped), whether the GGUF file's own chat template is used or plain ChatML, the sampling
defaults, extra stop strings, and how tool calls are prompted. It comes from the model file's
metadata matched against a small table of known families, and any field can be overridden
(``PromptRecipe.with_overrides``), e.g. from settings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

__all__ = [
    "FAMILIES",
    "GENERIC",
    "PromptRecipe",
    "RecipeError",
    "SystemTurn",
    "ToolPrompting",
    "family_of",
    "recipe_for",
]

SystemTurn = Literal["keep", "fold", "drop"]
"""``keep``: a system turn as the template writes it; ``fold``: its text starts the first user
turn; ``drop``: the caller's system text is left out (tool instructions still go in the first
user turn)."""

ToolPrompting = Literal["instructions", "template"]
"""``instructions``: Parley lists the tools and the ``<tool_call>`` format in the prompt;
``template``: the file's template renders the tools itself when it can (its format must be
``<tool_call>`` JSON), otherwise Parley's instructions are used."""


class RecipeError(ValueError):
    """An override names a field a recipe does not have, or gives it a value it cannot take."""


@dataclass(frozen=True)
class PromptRecipe:
    """How to prompt and sample one family of local models."""

    family: str = "generic"
    system: SystemTurn = "keep"
    file_template: bool = True
    """Use the chat template stored in the GGUF file; False: plain ChatML with no default
    system line (for templates that add one the model behaves worse with)."""
    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    stop: tuple[str, ...] = ()
    max_tokens: int | None = None
    """Reply length when the caller sets none (None: the model's own default)."""
    tools: ToolPrompting = "template"
    tool_turn: Literal["system", "user"] = "system"
    """Where the tool instructions go: the system turn, or the start of the last user turn."""
    tool_bias: float = 0.0
    """Added to the logits of the tokens that start a tool call, at the reply's first token
    only, when the model may either answer or call (tool choice ``auto``): the decision's
    threshold, tuned on the public set's tool prompts."""
    after_tools: Literal["turns", "plain", "facts"] = "turns"
    """How a tool's output comes back for the answer: ``turns``, the tool listing kept and each
    result as a ``<tool_response>`` turn; ``plain``, no listing and the bare output as the last
    user turn; ``facts``, the request restated after the outputs in one user turn. Small models
    answer from ``plain`` far more often (public set, after-tool cases)."""
    notes: str = field(default="", compare=False)

    def sampling(self) -> dict[str, Any]:
        """Keyword arguments for llama-cpp-python's completion call (all but temperature)."""
        return {
            "top_p": self.top_p,
            "top_k": self.top_k,
            "min_p": self.min_p,
            "repeat_penalty": self.repeat_penalty,
        }

    def with_overrides(self, overrides: Mapping[str, Any]) -> PromptRecipe:
        """This recipe with some fields replaced; raises :class:`RecipeError` on a bad one."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in fields:
                known = ", ".join(sorted(fields))
                raise RecipeError(f"a prompt recipe has no setting {key!r}; known: {known}")
            changes[key] = _checked(key, value, fields[key].type)
        return dataclasses.replace(self, **changes)


_CHOICES: dict[str, tuple[str, ...]] = {
    "system": get_args(SystemTurn),
    "tools": get_args(ToolPrompting),
    "tool_turn": ("system", "user"),
    "after_tools": ("turns", "plain", "facts"),
}


def _checked(key: str, value: Any, _annotation: object) -> Any:
    if key in _CHOICES:
        if value not in _CHOICES[key]:
            raise RecipeError(f"recipe setting {key} must be one of {', '.join(_CHOICES[key])}")
        return value
    if key in ("family", "notes"):
        return str(value)
    if key == "file_template":
        if not isinstance(value, bool):
            raise RecipeError("recipe setting file_template must be true or false")
        return value
    if key == "stop":
        if isinstance(value, str) or not all(isinstance(s, str) for s in value):
            raise RecipeError("recipe setting stop must be a list of strings")
        return tuple(value)
    if key in ("top_k", "max_tokens"):
        if value is None and key == "max_tokens":
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RecipeError(f"recipe setting {key} must be a whole number of at least 0")
        return value
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RecipeError(f"recipe setting {key} must be a number")
    if value < 0 and key != "tool_bias":
        raise RecipeError(f"recipe setting {key} must be a number of at least 0")
    return float(value)


GENERIC = PromptRecipe()

# Matched in order against the file's name and template; the first family that matches wins.
# Sampling values follow each family's published generation settings.
FAMILIES: tuple[tuple[str, tuple[str, ...], PromptRecipe], ...] = (
    (
        "smollm2",
        ("smollm2", "named smollm"),
        PromptRecipe(
            family="smollm2",
            system="drop",
            file_template=False,
            temperature=0.0,
            repeat_penalty=1.1,
            max_tokens=256,
            tool_turn="user",
            tool_bias=4.5,
            after_tools="plain",
            notes="Scores best on Parley's public set with no system turn at all and greedy "
            "decoding; any system turn (its template's default included) makes it derail.",
        ),
    ),
    (
        "qwen",
        ("qwen",),
        PromptRecipe(
            family="qwen",
            temperature=0.7,
            top_p=0.8,
            top_k=20,
            min_p=0.0,
            repeat_penalty=1.05,
        ),
    ),
    (
        "llama-3",
        ("llama-3", "llama 3", "llama3", "<|start_header_id|>"),
        PromptRecipe(family="llama-3", temperature=0.6, top_p=0.9, min_p=0.0, tools="instructions"),
    ),
    ("gemma", ("gemma", "<start_of_turn>"), PromptRecipe(family="gemma", system="fold")),
    ("mistral", ("mistral", "[inst]"), PromptRecipe(family="mistral", system="fold")),
    ("phi", ("phi-3", "phi-4", "phi 3", "phi 4", "<|end|>"), PromptRecipe(family="phi")),
)


def family_of(metadata: Mapping[str, str]) -> str:
    """The known family a GGUF file belongs to (``generic`` when none matches)."""
    return _match(metadata)[0]


def _match(metadata: Mapping[str, str]) -> tuple[str, PromptRecipe]:
    names = " ".join(
        metadata.get(k, "") for k in ("general.name", "general.basename", "general.finetune")
    ).lower()
    template = metadata.get("tokenizer.chat_template", "").lower()
    for family, needles, recipe in FAMILIES:
        if any(n in names for n in needles):
            return family, recipe
    for family, needles, recipe in FAMILIES:
        if any(n in template for n in needles):
            return family, recipe
    return GENERIC.family, GENERIC


def recipe_for(
    metadata: Mapping[str, str], overrides: Mapping[str, Any] | None = None
) -> PromptRecipe:
    """The recipe for a GGUF file with ``metadata``, with ``overrides`` applied."""
    recipe = _match(metadata)[1]
    return recipe.with_overrides(overrides) if overrides else recipe
