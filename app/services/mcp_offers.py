"""What the running MCP servers offer to attach to a message: their resources and prompts.

:func:`offers` lists them per server; :func:`fetch_offer` reads a resource or fills in a
prompt (one without required arguments) as content blocks, which the window attaches like a
file. A failure comes back as :class:`~app.core.errors.UserError` with one clear sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.core.errors import ParleyError, UserError

if TYPE_CHECKING:
    from app.core.state import ContentBlock
    from app.services.workspace_tools import WorkspaceTools

__all__ = ["Offer", "ServerOffers", "fetch_offer", "offers"]


@dataclass(frozen=True, slots=True)
class Offer:
    """One resource or prompt of a server."""

    server: str
    kind: Literal["resource", "prompt"]
    name: str
    description: str
    key: str
    """The resource's URI, or the prompt's name."""
    needs_arguments: bool = False
    """Whether the prompt has required arguments (not offered to attach yet)."""


@dataclass
class ServerOffers:
    """A running server's resources and prompts, or why they could not be listed."""

    server: str
    offers: list[Offer] = field(default_factory=list)
    problem: str | None = None


async def offers(tools: WorkspaceTools) -> list[ServerOffers]:
    """The resources and prompts of every running server, by server name."""
    manager = tools.manager
    if manager is None:
        return []
    out = []
    for name, conn in sorted(manager.connections.items()):
        if conn.state != "running":
            continue
        found = ServerOffers(name)
        try:
            for res in await manager.list_resources(name):
                found.offers.append(
                    Offer(name, "resource", res.name, res.description or "", str(res.uri))
                )
            for prompt in await manager.list_prompts(name):
                required = any(a.required for a in prompt.arguments or [])
                found.offers.append(
                    Offer(
                        name, "prompt", prompt.name, prompt.description or "", prompt.name, required
                    )
                )
        except ParleyError as exc:
            found.problem = f"The MCP server {name} could not list what it offers: {exc}"
        out.append(found)
    return out


async def fetch_offer(tools: WorkspaceTools, offer: Offer) -> list[ContentBlock]:
    """The blocks of ``offer``: the resource's content, or the prompt's messages."""
    manager = tools.manager
    what = f"the {offer.kind} {offer.name} of the MCP server {offer.server}"
    if manager is None:
        raise UserError(f"{what} cannot be read: the MCP servers are not running")
    if offer.needs_arguments:
        raise UserError(f"{what} needs arguments, which cannot be given yet")
    try:
        if offer.kind == "resource":
            blocks = await manager.read_resource(offer.server, offer.key)
        else:
            blocks = await manager.get_prompt(offer.server, offer.key)
    except ParleyError as exc:
        raise UserError(f"{what} could not be read: {exc}") from None
    if not blocks:
        raise UserError(f"{what} is empty")
    return blocks
