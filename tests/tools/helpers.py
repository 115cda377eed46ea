"""Call a tool the way a model does: through a ``ToolNode``, reading the result it would read."""

from __future__ import annotations

from typing import Any

from app.core.state import Message, ToolResultBlock
from app.core.tools import InMemoryApprovalPolicy, SecretSource, Tool, ToolNode
from tests.core.tools.helpers import Run, asking, call


async def answer(tool: Tool[..., Any], secrets: SecretSource | None = None, **args: Any) -> Message:
    """Run one call of ``tool`` with every permission it needs, approved by an "always" rule
    the user made earlier; return the tool message the model reads (its result block first,
    then any blocks the tool returned, such as images)."""
    policy = InMemoryApprovalPolicy()
    policy.allow(tool.name, None)
    run = Run(permissions=tool.permissions)
    node = ToolNode([tool], approval_policy=policy, secret_resolver=secrets)
    update = await run.once(node, asking(call(tool.name, **args)))
    tool_messages: list[Message] = [m for m in update["context"] if m.role == "tool"]
    return tool_messages[0]


async def ask(
    tool: Tool[..., Any], secrets: SecretSource | None = None, **args: Any
) -> tuple[Any, str | None]:
    """Run one call of ``tool`` as :func:`answer` does; return what the model reads (the
    result's output) and the error code (``None`` when the call succeeded)."""
    message = await answer(tool, secrets, **args)
    first = message.content[0]
    assert isinstance(first, ToolResultBlock)
    return first.output, message.metadata.get("tool_error")


async def ok(tool: Tool[..., Any], secrets: SecretSource | None = None, **args: Any) -> Any:
    """The output of a call that must succeed."""
    output, code = await ask(tool, secrets, **args)
    assert code is None, output
    return output


async def refused(tool: Tool[..., Any], secrets: SecretSource | None = None, **args: Any) -> str:
    """The sentence of a call that must fail (as a result, not an exception)."""
    output, code = await ask(tool, secrets, **args)
    assert code is not None, output
    assert isinstance(output, str)
    assert "Traceback" not in output
    return output
