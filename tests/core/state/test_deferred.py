"""The engine's validators are built at first use or by ``build_deferred``, not at import."""

from __future__ import annotations

import subprocess
import sys

from pydantic import BaseModel

from app.core.state import Message
from app.core.state.deferred import build_deferred
from app.core.state.serde import dump_messages, load_messages


def _all_models() -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    pending = list(BaseModel.__subclasses__())
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending += cls.__subclasses__()
    return [m for m in found if m.__module__.startswith("app.")]


def test_importing_the_engine_builds_no_message_validator() -> None:
    code = (
        "import app.core, app.core.state.serde as s; from app.core import Message, AgentState; "
        "print(Message.__pydantic_complete__, AgentState.__pydantic_complete__, "
        "s.MESSAGES.pydantic_complete)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_after_building_every_model_validates_as_before() -> None:
    names = list(build_deferred())
    assert all(isinstance(name, str) for name in names)
    assert [m.__qualname__ for m in _all_models() if not m.__pydantic_complete__] == []
    assert list(build_deferred()) == []  # nothing left the second time
    messages = [Message.text_message("hi"), Message.text_message("hello", role="assistant")]
    assert load_messages(dump_messages(messages)) == messages
