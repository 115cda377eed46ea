"""An MCP server's tool as a Parley :class:`~app.core.tools.Tool` the agent calls like any other.

The model is shown the server's own JSON Schema; the arguments it sends go to the server as
they are (the server checks them and its error reaches the model). Approval, permissions,
budgets, progress and the audit log are the engine's, exactly as for built-in tools.
"""

from __future__ import annotations

from typing import Any

import mcp.types as mcp_types
from pydantic import BaseModel, ConfigDict

from app.core.errors import ParleyError
from app.core.models.protocol import ToolSpec
from app.core.state.message_block import TextBlock
from app.core.tools import Runtime, Tool
from app.tools.mcp._cap import capped, capped_json
from app.tools.mcp.config import ToolPolicy
from app.tools.mcp.connection import McpConnection
from app.tools.mcp.content import blocks_of

__all__ = ["ARGUMENTS", "McpTool", "McpToolError", "permission_for"]

ARGUMENTS = "call_arguments"
"""The one parameter an MCP tool's function receives: every argument the model sent."""


class McpToolError(ParleyError, RuntimeError):
    """The server ran the tool and reported that it failed; the message is the server's."""


class _Arguments(BaseModel):
    """Any JSON object: the server validates the arguments against its own schema."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    @property
    def call_arguments(self) -> dict[str, Any]:
        """Every argument, as sent."""
        return dict(self.__pydantic_extra__ or {})


def permission_for(server: str) -> str:
    """The permission a run must grant to call the tools of ``server``."""
    return f"mcp:{server}"


def _schema(tool: mcp_types.Tool) -> dict[str, Any]:
    schema = dict(tool.input_schema or {})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


class McpTool(Tool[..., Any]):
    """``connection``'s tool ``info`` offered under ``name``, run at once or after approval."""

    def __init__(
        self,
        connection: McpConnection,
        info: mcp_types.Tool,
        name: str,
        policy: ToolPolicy,
    ) -> None:
        async def placeholder() -> None:
            """Replaced by the call to the server below."""

        super().__init__(
            placeholder,
            name=name,
            description=info.description or info.title or info.name,
            permissions=(permission_for(connection.name),),
            # the connection bounds starting and calling with clearer messages; this is the
            # engine's last resort should both somehow hang
            timeout=connection.start_timeout + connection.call_timeout + 5,
            requires_approval=policy == "approval",
        )
        self.connection = connection
        self.info = info
        self.remote_name = info.name
        self.policy = policy
        self.fn = self._call
        self.spec = ToolSpec(name=name, description=self.description, parameters=_schema(info))

    @property
    def args_model(self) -> type[BaseModel]:
        """Accepts any JSON object (the server has the schema's last word)."""
        return _Arguments

    @property
    def arg_names(self) -> tuple[str, ...]:
        """One parameter, holding every argument."""
        return (ARGUMENTS,)

    @property
    def runtime_param(self) -> str | None:
        """The call's ``Runtime`` arrives as ``runtime`` (for the server's progress reports)."""
        return "runtime"

    async def _call(self, call_arguments: dict[str, Any], runtime: Runtime) -> Any:
        connection = self.connection

        async def heard(progress: float, total: float | None, message: str | None) -> None:
            share = min(1.0, progress / total) if total else None
            runtime.report_progress(connection.redact(message or ""), share)

        result = await connection.call_tool(self.remote_name, call_arguments, progress=heard)
        blocks = capped(blocks_of(result.content), connection.redact_value)
        if result.is_error:
            said = " ".join(b.text for b in blocks if isinstance(b, TextBlock)).strip()
            raise McpToolError(said or f"the server reported an error in {self.remote_name!r}")
        if not blocks:
            return capped_json(connection.redact_value(result.structured_content))
        return blocks

    def __repr__(self) -> str:
        return f"McpTool({self.name!r}, policy={self.policy!r})"
