"""Comparing models, through the workspace on a real database file: one question to several
scripted models at once, each answer a version of the same answer in one thread, a failing
model's sentence in its column while the others go on, and keeping another answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.core.models.protocol import ChatModel, ModelInfo, ModelPrice
from app.services.compare import Column
from app.services.runs import ThreadBusy
from app.services.settings import AppSettings
from app.services.workspace import Workspace

PRICE = ModelPrice(input_per_mtok=1.0, output_per_mtok=2.0)


def scripted(spec: str, turn: dict[str, object], delay: float = 0.0) -> ScriptedChatModel:
    """A scripted model that answers ``turn`` once and calls itself ``spec``."""
    info = ModelInfo(spec=spec, name=spec, provider="scripted", price=PRICE)
    return ScriptedChatModel([turn], chunk_size=3, delay=delay, info=info)


MODELS: dict[str, ChatModel] = {}


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[Workspace]:
    MODELS.clear()
    opened = await Workspace.open(
        tmp_path, resolve_model=lambda s: MODELS[s], secret_resolver=lambda _r: ""
    )
    opened.settings.use(AppSettings(default_model="scripted:a"))
    try:
        yield opened
    finally:
        await opened.aclose()


async def texts(ws: Workspace, thread_id: str) -> list[str]:
    page = await ws.threads.read_messages(thread_id)
    return [m.text() for m in page.messages]


USAGE = {"prompt_tokens": 10, "completion_tokens": 6}


async def test_two_models_answer_as_versions_of_one_answer(ws: Workspace) -> None:
    MODELS["scripted:a.json"] = scripted(
        "scripted:a.json", {"text": "Take a coat.", "usage": USAGE}
    )
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": "Bring an umbrella."})
    seen: list[tuple[int, str, str]] = []

    def change(index: int, column: Column) -> None:
        seen.append((index, column.state, column.text))

    done = await ws.compare.compare(
        "Oslo in May?", ["scripted:a.json", "scripted:b.json"], on_change=change
    )
    assert [c.text for c in done.columns] == ["Take a coat.", "Bring an umbrella."]
    assert [c.state for c in done.columns] == ["done", "done"]
    first = done.columns[0].figures
    assert first.tokens == 6 and first.cost == pytest.approx((10 * 1.0 + 6 * 2.0) / 1e6)
    assert first.first_token is not None and first.tokens_per_second is not None
    assert done.columns[1].figures.tokens is None  # the model did not say
    # the answers streamed piece by piece, each in its own column
    assert (0, "streaming", "Tak") in seen and (1, "streaming", "Bri") in seen
    thread = await ws.threads.get(done.thread_id)
    assert thread.title == "Oslo in May?"
    assert await texts(ws, done.thread_id) == ["Oslo in May?", "Take a coat."]
    tree = await ws.threads.branches(done.thread_id)
    assert [(b.index, b.count, b.line, b.shown) for b in tree] == [
        (1, 2, "Take a coat.", True),
        (2, 2, "Bring an umbrella.", False),
    ]
    # each answer says which model gave it, with its figures
    shown = (await ws.threads.read_messages(done.thread_id)).messages[-1]
    assert shown.metadata["notes"][-1].startswith("scripted:a.json: ")
    assert "6 tokens" in shown.metadata["notes"][-1]
    await ws.compare.keep(done, 1)
    assert await texts(ws, done.thread_id) == ["Oslo in May?", "Bring an umbrella."]
    tree = await ws.threads.branches(done.thread_id)
    assert [(b.index, b.shown) for b in tree] == [(1, False), (2, True)]
    assert (await ws.threads.get(done.thread_id)).model == "scripted:b.json"
    # the thread goes on with the answer kept
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": "Yes, layers."})
    ws.models.forget()
    await (await ws.runs.send(done.thread_id, "Layers?"))
    assert await texts(ws, done.thread_id) == [
        "Oslo in May?", "Bring an umbrella.", "Layers?", "Yes, layers.",
    ]  # fmt: skip


async def test_a_failing_model_shows_its_sentence_and_the_others_go_on(ws: Workspace) -> None:
    MODELS["scripted:a.json"] = scripted("scripted:a.json", {"error": "the server went away"})
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": "Pack light."})
    MODELS["scripted:c.json"] = scripted("scripted:c.json", {"text": "Wear boots."})
    done = await ws.compare.compare(
        "Oslo in May?", ["scripted:a.json", "scripted:b.json", "scripted:c.json"]
    )
    assert done.columns[0].state == "failed"
    assert done.columns[0].error == "the server went away"
    assert [c.text for c in done.columns[1:]] == ["Pack light.", "Wear boots."]
    assert await texts(ws, done.thread_id) == ["Oslo in May?", "Pack light."]
    assert [b.line for b in await ws.threads.branches(done.thread_id)] == [
        "Pack light.",
        "Wear boots.",
    ]
    with pytest.raises(UserError, match="gave no answer to keep"):
        await ws.compare.keep(done, 0)


async def test_in_an_open_thread_the_answers_follow_its_path(ws: Workspace) -> None:
    MODELS["scripted:a"] = ScriptedChatModel(["Hello."])
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Hi"))
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": "Four."})
    MODELS["scripted:c.json"] = scripted("scripted:c.json", {"text": "4"})
    done = await ws.compare.compare(
        "2+2?", ["scripted:b.json", "scripted:c.json"], thread_id=thread.id
    )
    assert done.thread_id == thread.id
    sent = MODELS["scripted:b.json"]
    assert isinstance(sent, ScriptedChatModel)
    assert [m.text() for m in sent.calls[0] if m.role != "system"] == ["Hi", "Hello.", "2+2?"]
    assert await texts(ws, thread.id) == ["Hi", "Hello.", "2+2?", "Four."]
    tree = await ws.threads.branches(thread.id)
    assert [(b.at, b.line) for b in tree] == [(4, "Four."), (4, "4")]


async def test_models_on_this_computer_answer_one_at_a_time_beside_remote_ones(
    ws: Workspace,
) -> None:
    order: list[str] = []

    class Noting(ScriptedChatModel):
        async def astream(self, messages, *, tools=None, config=None):  # type: ignore[no-untyped-def]
            order.append(f"{self.info.spec} starts")
            async for chunk in super().astream(messages, tools=tools, config=config):
                yield chunk
            order.append(f"{self.info.spec} ends")

    for spec in ("gguf:/m/one.gguf", "gguf:/m/two.gguf", "scripted:far.json"):
        info = ModelInfo(spec=spec, name=spec, provider="x")
        MODELS[spec] = Noting(["A long enough answer."], chunk_size=2, delay=0.01, info=info)
    await ws.compare.compare("Q", list(MODELS))
    one, two = order.index("gguf:/m/one.gguf ends"), order.index("gguf:/m/two.gguf starts")
    assert one < two  # the second local model waited for the first
    assert order.index("scripted:far.json starts") < one  # the remote one streamed meanwhile


@pytest.mark.parametrize(
    ("specs", "sentence"),
    [
        (["scripted:a.json"], "compare takes 2 to 4 models, not 1"),
        (["scripted:a.json"] * 2, "each model to compare must be a different one"),
        ([f"scripted:{n}.json" for n in range(5)], "compare takes 2 to 4 models, not 5"),
        (["scripted:a.json", "nonsense"], "unknown model spec"),
    ],
)
async def test_a_bad_choice_of_models_is_refused_in_a_sentence(
    ws: Workspace, specs: list[str], sentence: str
) -> None:
    with pytest.raises(UserError, match=sentence):
        await ws.compare.compare("Q", specs)
    assert await ws.threads.list_all() == []


async def test_a_thread_that_is_answering_is_refused(ws: Workspace) -> None:
    MODELS["scripted:a"] = ScriptedChatModel(["Slowly answered."], delay=0.05)
    thread = await ws.threads.create()
    turn = await ws.runs.send(thread.id, "Hi")
    with pytest.raises(ThreadBusy, match="still answering"):
        await ws.compare.compare("Q", ["scripted:b", "scripted:c"], thread_id=thread.id)
    await turn
    assert await texts(ws, thread.id) == ["Hi", "Slowly answered."]


async def test_a_turn_sent_meanwhile_sends_the_answers_to_a_new_thread(ws: Workspace) -> None:
    MODELS["scripted:a"] = ScriptedChatModel(["Hello.", "Still here."])
    thread = await ws.threads.create()
    await (await ws.runs.send(thread.id, "Hi"))
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": "Slow B."}, delay=0.02)
    MODELS["scripted:c.json"] = scripted("scripted:c.json", {"text": "Slow C."}, delay=0.02)
    comparing = asyncio.ensure_future(
        ws.compare.compare("2+2?", ["scripted:b.json", "scripted:c.json"], thread_id=thread.id)
    )
    await asyncio.sleep(0.01)
    await (await ws.runs.send(thread.id, "Are you there?"))
    done = await comparing
    assert done.thread_id != thread.id and "kept in a new thread" in done.note
    # nothing is lost: the turn sent stays in its thread, the answers are in the new one
    assert await texts(ws, thread.id) == ["Hi", "Hello.", "Are you there?", "Still here."]
    assert await texts(ws, done.thread_id) == ["Hi", "Hello.", "2+2?", "Slow B."]
    assert [b.line for b in await ws.threads.branches(done.thread_id)] == ["Slow B.", "Slow C."]


async def test_a_model_that_breaks_unexpectedly_leaves_the_others_answering(
    ws: Workspace,
) -> None:
    class Broken(ScriptedChatModel):
        async def astream(self, messages, *, tools=None, config=None):  # type: ignore[no-untyped-def]
            yield {}["missing"]  # a fault of Parley's own, not a model error

    MODELS["scripted:a.json"] = Broken([])
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": "Fine."})
    done = await ws.compare.compare("Q", ["scripted:a.json", "scripted:b.json"])
    assert done.columns[0].error == ("Something went wrong inside Parley (KeyError); try it again.")
    assert await texts(ws, done.thread_id) == ["Q", "Fine."]


async def test_stop_ends_every_answer_where_it_is_and_keeps_what_came(ws: Workspace) -> None:
    long = " ".join(f"word{n}" for n in range(400))
    MODELS["scripted:a.json"] = scripted("scripted:a.json", {"text": long}, delay=0.01)
    MODELS["scripted:b.json"] = scripted("scripted:b.json", {"text": long}, delay=0.01)
    stop = asyncio.Event()

    def changed(_index: int, column: Column) -> None:
        if len(column.text) > 40:  # both are answering: the person presses Stop
            stop.set()

    comparison = await ws.compare.compare(
        "Count", ["scripted:a.json", "scripted:b.json"], on_change=changed, stop=stop
    )
    for column in comparison.columns:
        assert column.state == "done" and 0 < len(column.text) < len(long)
        assert long.startswith(column.text)
    shown = (await ws.threads.read_messages(comparison.thread_id)).messages
    assert shown[-1].text() == comparison.columns[0].text
    assert shown[-1].end_reason == "stopped"  # the thread says the answer was stopped
