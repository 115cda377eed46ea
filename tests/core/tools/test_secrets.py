"""Secrets: resolved at the call boundary, redacted from everything that leaves the call."""

from __future__ import annotations

import json
from typing import cast

import pytest
from pydantic import BaseModel, computed_field

from app.core.state import AgentState, DataBlock, Message, TextBlock, ToolResult, apply_update
from app.core.state.serde import dump_state
from app.core.tools import Runtime, SecretError, ToolNode, idempotency_key, resolve_secret, tool
from tests.core.tools.helpers import Run, asking, call, error_code, result

TOKEN = "tok-0123456789abcdef"


class Vault:
    """A fake SecretResolver with an async ``resolve``."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values = values or {}

    async def resolve(self, ref: str) -> str:
        """Return the value or say it is not set."""
        if ref not in self.values:
            raise SecretError(ref, f"secret {ref!r} is not set; set it in Settings")
        return self.values[ref]


@tool(secret_refs={"token": "crm/api-token"})
def whoami(user: str, token: str) -> str:
    """Return the token, as a careless tool might."""
    return f"{user} uses {token}"


async def test_secret_is_injected_and_redacted_from_output() -> None:
    update = await Run().once(
        ToolNode([whoami], secret_resolver=Vault({"crm/api-token": TOKEN})),
        asking(call("whoami", user="ann")),
    )
    assert result(update).output == "ann uses [redacted secret crm/api-token]"


async def test_plain_sync_and_async_functions_are_resolvers() -> None:
    async def async_lookup(ref: str) -> str:
        return TOKEN

    for resolver in (lambda ref: TOKEN, async_lookup):
        node = ToolNode([whoami], secret_resolver=resolver)
        update = await Run().once(node, asking(call("whoami", user="ann")))
        assert result(update).status == "completed"


async def test_secret_never_reaches_state_checkpoint_or_events() -> None:
    @tool(secret_refs={"token": "crm/api-token"})
    def leaky(token: str, runtime: Runtime) -> ToolResult:
        """Puts the secret everywhere it can."""
        runtime.report_progress(f"using {token}")
        note = Message.text_message(f"token={token}", role="user", message_id="n")
        return ToolResult(
            message={"nested": [f"x{token}x"], token: 1},
            state={"context_summary": f"the token is {token}", "context": [note]},
        )

    run = Run()
    node = ToolNode([leaky], secret_resolver=Vault({"crm/api-token": TOKEN}))
    state = asking(call("leaky"))
    update = await run.once(node, state)
    new = apply_update(state, update)
    saved = dump_state(new).decode()
    assert TOKEN not in saved
    assert TOKEN not in repr(run.events)
    assert new.context_summary == "the token is [redacted secret crm/api-token]"
    assert result(update).output == {
        "nested": ["x[redacted secret crm/api-token]x"],
        "[redacted secret crm/api-token]": 1,
    }


class Badge(BaseModel):
    """A model whose dump shows its code backwards: a secret kept backwards is shown."""

    code: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def shown(self) -> str:
        return self.code[::-1]


class BadgeState(AgentState):
    badge: Badge | None = None


async def test_a_model_that_shows_a_secret_through_a_computed_field_is_not_kept() -> None:
    """Redacting its dump and rebuilding it would compute the secret again (and a state
    field of its type would rebuild it from the redacted dump): the call fails instead."""

    @tool(secret_refs={"token": "crm/api-token"})
    def badge(token: str) -> ToolResult:
        """Keeps the token backwards in the state."""
        return ToolResult(message="badge made", state={"badge": Badge(code=token[::-1])})

    state = cast(BadgeState, asking(call("badge"), state_cls=BadgeState))
    node = ToolNode([badge], secret_resolver=Vault({"crm/api-token": TOKEN}))
    update = await Run().once(node, state)
    assert error_code(update) == "bad_return"
    assert "a Badge in it shows a secret" in str(result(update).output)
    new = apply_update(state, update)
    assert new.badge is None
    assert TOKEN not in dump_state(new).decode()


async def test_secret_in_an_error_message_is_redacted() -> None:
    @tool(secret_refs={"token": "crm/api-token"})
    def failing(token: str) -> str:
        """Fails and quotes the token."""
        raise PermissionError(f"token {token} was refused")

    update = await Run().once(
        ToolNode([failing], secret_resolver=Vault({"crm/api-token": TOKEN})),
        asking(call("failing")),
    )
    assert result(update).output == (
        "Tool 'failing' failed: PermissionError: token [redacted secret crm/api-token] was refused"
    )


async def test_a_secret_of_one_call_is_redacted_from_the_others() -> None:
    @tool
    def guess() -> str:
        """Happens to print the token."""
        return f"maybe {TOKEN}"

    node = ToolNode([whoami, guess], secret_resolver=Vault({"crm/api-token": TOKEN}))
    update = await Run().once(node, asking(call("whoami", "c1", user="a"), call("guess", "c2")))
    assert TOKEN not in json.dumps([m.model_dump(mode="json") for m in update["context"]])


async def test_missing_secret_and_missing_resolver_are_clear_errors() -> None:
    missing = await Run().once(
        ToolNode([whoami], secret_resolver=Vault()), asking(call("whoami", user="a"))
    )
    assert error_code(missing) == "secret"
    assert result(missing).output == (
        "Tool 'whoami' could not run: secret 'crm/api-token' is not set; set it in Settings."
    )
    none = await Run().once(ToolNode([whoami]), asking(call("whoami", user="a")))
    assert "no secret resolver is configured" in str(result(none).output)


async def test_a_failing_resolver_names_the_ref_but_not_its_message() -> None:
    def broken(ref: str) -> str:
        raise OSError("dbus said no to tok-secret-ish")

    with pytest.raises(SecretError, match="OSError") as caught:
        await resolve_secret(broken, "crm/api-token")
    assert caught.value.ref == "crm/api-token"
    assert "dbus" not in str(caught.value)
    empty = await Run().once(
        ToolNode([whoami], secret_resolver=lambda r: ""), asking(call("whoami", user="a"))
    )
    assert "is not set" in str(result(empty).output)


async def test_secret_is_not_resolved_when_the_call_is_refused() -> None:
    asked: list[str] = []

    def resolver(ref: str) -> str:
        asked.append(ref)
        return TOKEN

    node = ToolNode([whoami], secret_resolver=resolver)
    await Run().once(node, asking(call("whoami", user=3)))
    assert asked == []


def test_idempotency_key_depends_on_thread_call_and_tool() -> None:
    key = idempotency_key("t1", "c1", "book")
    assert key == idempotency_key("t1", "c1", "book")
    assert (
        len(
            {
                key,
                idempotency_key("t2", "c1", "book"),
                idempotency_key("t1", "c2", "book"),
                idempotency_key("t1", "c1", "pay"),
                idempotency_key(None, "c1", "book"),
            }
        )
        == 5
    )


def test_state_default_dump_holds_no_runtime() -> None:
    assert "Runtime" not in dump_state(AgentState()).decode()


@pytest.mark.parametrize("secret", ['pa"ss\\word\n', "pässwörd-ü", "plain-secret"])
async def test_secrets_json_would_escape_are_redacted_too(secret: str) -> None:
    @tool(secret_refs={"token": "svc/key"})
    def echo(token: str) -> list[object]:
        """Return the token in blocks and data."""
        return [TextBlock(text=f"<{token}>"), DataBlock(mime_type="x/y", data={"k": token})]

    update = await Run().once(
        ToolNode([echo], secret_resolver=lambda r: secret), asking(call("echo"))
    )
    content = update["context"][0].content
    assert content[0].output == "<[redacted secret svc/key]>"
    assert content[1].data == {"k": "[redacted secret svc/key]"}


async def test_a_changed_secret_is_redacted_from_the_next_call() -> None:
    @tool(secret_refs={"token": "crm/api-token"})
    def leak(token: str) -> str:
        """Print the token."""
        return f"token={token}"

    vault = Vault({"crm/api-token": TOKEN})
    node = ToolNode([leak], secret_resolver=vault)
    first = await Run().once(node, asking(call("leak")))
    vault.values["crm/api-token"] = "rotated-9876543210fedcba"
    second = await Run().once(node, asking(call("leak")))
    assert result(first).output == "token=[redacted secret crm/api-token]"
    assert result(second).output == "token=[redacted secret crm/api-token]"


@pytest.mark.parametrize("secret", ["!@#$%^&*", "ab", "a-b.c~d_e"])
async def test_secrets_of_any_shape_are_redacted_from_every_part_of_the_update(
    secret: str,
) -> None:
    # a secret with no run of plain characters has no quick test; a text exactly as long as
    # the secret is the shortest that can hold it
    @tool(secret_refs={"token": "svc/key"})
    def echo(token: str) -> ToolResult:
        """Return the token as output, in state, and in a message of its own."""
        return ToolResult(
            message=token,
            state={"context_summary": f"it was {token}", "context": [Message.text_message(token)]},
        )

    node = ToolNode([echo], secret_resolver=lambda ref: secret)
    update = await Run().once(node, asking(call("echo")))
    dumped = json.dumps([m.model_dump(mode="json") for m in update["context"]])
    assert secret not in dumped
    assert result(update).output == "[redacted secret svc/key]"
    assert update["context"][1].text() == "[redacted secret svc/key]"
    assert update["context_summary"] == "it was [redacted secret svc/key]"


async def test_authorize_and_the_tool_see_one_runtime_for_the_call() -> None:
    seen: list[Runtime] = []

    def authorize(c: object, runtime: Runtime) -> bool:
        seen.append(runtime)
        return True

    @tool(secret_refs={"token": "crm/api-token"})
    def report(token: str, runtime: Runtime) -> str:
        """Report progress that quotes the token."""
        seen.append(runtime)
        runtime.report_progress(f"using {token}")
        return "done"

    run = Run()
    node = ToolNode(
        [report], secret_resolver=Vault({"crm/api-token": TOKEN}), tool_authorize=authorize
    )
    update = await run.once(node, asking(call("report", "c7")))
    assert result(update).output == "done"
    assert [r.call_id for r in seen] == ["c7", "c7"]
    assert seen[0].idempotency_key == seen[1].idempotency_key
    messages = [e.message for e in run.events if getattr(e, "status", "") == "progress"]
    assert messages == ["using [redacted secret crm/api-token]"]
