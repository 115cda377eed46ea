"""Prompt recipes: which family a GGUF file belongs to, overrides, and the prompt each recipe
renders (checked as exact text, with SmolLM2's real chat template)."""

from __future__ import annotations

import pytest

from app.core.models.protocol import ToolSpec
from app.providers._llama_template import TOOL_INSTRUCTIONS, ChatTemplate
from app.providers.recipes import GENERIC, PromptRecipe, RecipeError, family_of, recipe_for

SMOL_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SMOL = {"general.name": "SmolLM2 135M Instruct", "tokenizer.chat_template": SMOL_TEMPLATE}
TURN = [
    {"role": "system", "content": "You are Parley."},
    {"role": "user", "content": "What is the capital of France?"},
]
CLOCK = ToolSpec(name="current_time", description="Return the current time.")


def test_families_come_from_the_name_or_the_template() -> None:
    assert family_of(SMOL) == "smollm2"
    assert family_of({"general.name": "Qwen2.5 1.5B Instruct"}) == "qwen"
    assert family_of({"general.basename": "Llama-3.2", "general.name": "x"}) == "llama-3"
    assert family_of({"tokenizer.chat_template": "<start_of_turn>user"}) == "gemma"
    assert family_of({"general.name": "Mistral 7B Instruct v0.3"}) == "mistral"
    assert family_of({"general.name": "Something new"}) == "generic"
    assert recipe_for({}) is GENERIC


def test_the_bundled_family_drops_the_system_turn_and_decodes_greedily() -> None:
    recipe = recipe_for(SMOL)
    assert (recipe.system, recipe.file_template, recipe.temperature) == ("drop", False, 0.0)


def test_overrides_replace_fields_and_bad_ones_say_what_is_wrong() -> None:
    recipe = recipe_for(SMOL, {"temperature": 0.3, "system": "fold", "stop": ["\n\n"]})
    assert (recipe.temperature, recipe.system, recipe.stop) == (0.3, "fold", ("\n\n",))
    with pytest.raises(RecipeError, match="a prompt recipe has no setting 'temprature'; known:"):
        recipe_for(SMOL, {"temprature": 0.3})
    with pytest.raises(RecipeError, match="recipe setting system must be one of keep, fold, drop"):
        PromptRecipe().with_overrides({"system": "sometimes"})
    with pytest.raises(RecipeError, match="top_k must be a whole number of at least 0"):
        PromptRecipe().with_overrides({"top_k": 2.5})
    with pytest.raises(RecipeError, match="stop must be a list of strings"):
        PromptRecipe().with_overrides({"stop": "END"})


def smol(file_template: bool) -> ChatTemplate:
    return ChatTemplate.from_metadata(
        SMOL, "<|im_end|>", "<|im_start|>", file_template=file_template
    )


def test_the_smollm2_recipe_sends_no_system_turn_at_all() -> None:
    chatml = smol(False)
    assert not chatml.is_fallback and chatml.note == "", "chosen on purpose, not a fallback"
    prompt = chatml.render(TURN, [], recipe_for(SMOL))
    assert prompt == (
        "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
    )


def test_keeping_the_system_turn_uses_the_files_template() -> None:
    prompt = smol(True).render(TURN, [], GENERIC)
    assert prompt.startswith("<|im_start|>system\nYou are Parley.<|im_end|>\n<|im_start|>user\n")
    bare = smol(True).render(TURN[1:], [], GENERIC)
    assert "named SmolLM" in bare, "the file's template adds its own system line"


def test_folding_puts_the_system_text_at_the_start_of_the_first_user_turn() -> None:
    prompt = smol(True).render(TURN, [], PromptRecipe(system="fold"))
    assert "<|im_start|>user\nYou are Parley.\n\nWhat is the capital of France?" in prompt


def test_tool_instructions_go_into_the_user_turn_when_the_recipe_says_so() -> None:
    prompt = smol(False).render(TURN, [CLOCK], recipe_for(SMOL))
    assert prompt.startswith("<|im_start|>user\n" + TOOL_INSTRUCTIONS)
    assert '"name": "current_time"' in prompt
    assert "You are Parley." not in prompt
    assert prompt.endswith("What is the capital of France?<|im_end|>\n<|im_start|>assistant\n")
    in_system = smol(False).render(TURN, [CLOCK], GENERIC)
    assert in_system.startswith("<|im_start|>system\nYou are Parley.\n\n" + TOOL_INSTRUCTIONS)


AFTER_CALL = [
    *TURN,
    {"role": "assistant", "content": '<tool_call>{"name": "current_time", "arguments": {}}'
     "</tool_call>"},
    {"role": "tool", "content": '<tool_response>{"name": "current_time", "output": "09:30"}'
     "</tool_response>", "tool_results": [("current_time", "09:30")]},
]  # fmt: skip


def test_the_bundled_family_gets_a_tools_bare_output_to_answer_from() -> None:
    prompt = smol(False).render(AFTER_CALL, [CLOCK], recipe_for(SMOL))
    assert prompt == (
        "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>{"name": "current_time", "arguments": {}}'
        "</tool_call><|im_end|>\n"
        "<|im_start|>user\n09:30<|im_end|>\n<|im_start|>assistant\n"
    ), "no tool listing, no JSON wrapping: the output alone"
    turns = smol(False).render(AFTER_CALL, [CLOCK], GENERIC.with_overrides({"system": "drop"}))
    assert TOOL_INSTRUCTIONS in turns and "<tool_response>" in turns


def test_facts_restate_the_request_after_the_outputs() -> None:
    recipe = recipe_for(SMOL).with_overrides({"after_tools": "facts"})
    prompt = smol(False).render(AFTER_CALL, [CLOCK], recipe)
    assert prompt == (
        "<|im_start|>user\nFacts:\n- current_time: 09:30\n\n"
        "Question: What is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
    )
    with pytest.raises(RecipeError, match="after_tools must be one of turns, plain, facts"):
        recipe.with_overrides({"after_tools": "json"})
