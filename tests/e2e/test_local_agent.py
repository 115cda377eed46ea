"""The whole engine on the bundled model: a grammar-constrained tool call runs through the
agent loop, is saved in a real database, and the turn ends with a text answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core import HumanMessage, create_agent, tool
from app.core.models import GenerationConfig
from app.core.state import ToolCallBlock
from app.providers.local import LlamaCppChatModel
from app.store import Store

pytestmark = pytest.mark.slow


@tool
def get_weather(city: str) -> str:
    """Get today's weather for a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    return f"Sunny and 21 °C in {city}."


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaCppChatModel]:
    loaded = LlamaCppChatModel(n_ctx=2048, default_max_tokens=96)
    try:
        yield loaded
    finally:
        loaded.close()


async def test_bundled_model_calls_a_tool_and_answers(
    model: LlamaCppChatModel, tmp_path: Path
) -> None:
    async with Store.open(tmp_path / "parley.db") as store:
        agent = create_agent(
            model,
            [get_weather],
            system_prompt="You are a weather assistant. Use the get_weather tool.",
            generation=GenerationConfig(tool_choice="required", temperature=0.0, seed=1),
            checkpointer=store.checkpointer,
        )
        # four steps: call the model, run the tool, then one last call without tools
        cfg = {"thread_id": "weather", "step_limit": 4}
        state = await agent.ainvoke({"messages": [HumanMessage("Weather in Paris?")]}, cfg)

        calls = [b for m in state.context for b in m.content if isinstance(b, ToolCallBlock)]
        assert calls, "the constrained reply held no tool call"
        assert calls[0].name == "get_weather"
        assert isinstance(calls[0].args.get("city"), str)
        results = [r for m in state.context if m.role == "tool" for r in m.tool_results()]
        assert results[0].status == "completed"
        assert "Sunny" in str(results[0].output)
        last = state.context[-1]
        assert last.role == "assistant"
        assert not last.tool_calls()
        assert last.text().strip()
        assert state.execution_meta.status == "completed"

        saved = await agent.aget_state(cfg)
        assert saved is not None
        assert [m.message_id for m in saved.state.context] == [m.message_id for m in state.context]
