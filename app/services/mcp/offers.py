"""What the running MCP servers offer to attach to a message: their resources and prompts.

:func:`offers` lists them per server; :func:`fetch_offer` reads a resource, or fills in a
prompt with the arguments the user gave, as content blocks, which the window attaches like a
file. A failure comes back as :class:`~app.core.errors.UserError` with one clear sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.core.errors import ParleyError, UserError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from app.core.state import ContentBlock
    from app.services.mcp.service import McpService

__all__ = ["Offer", "PromptArgument", "ServerOffers", "fetch_offer", "offers"]


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument a prompt takes, as its server describes it."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class Offer:
    """One resource or prompt of a server."""

    server: str
    kind: Literal["resource", "prompt"]
    name: str
    description: str
    key: str
    """The resource's URI, or the prompt's name."""
    arguments: tuple[PromptArgument, ...] = ()
    """The prompt's arguments, in the server's order (none for a resource)."""

    @property
    def needs_arguments(self) -> bool:
        """Whether the prompt asks for anything before it can be filled in."""
        return bool(self.arguments)


@dataclass
class ServerOffers:
    """A running server's resources and prompts, or why they could not be listed."""

    server: str
    offers: list[Offer] = field(default_factory=list)
    problem: str | None = None


async def offers(mcp: McpService) -> list[ServerOffers]:
    """The resources and prompts of every running server, by server name."""
    manager = mcp.manager
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
                arguments = tuple(
                    PromptArgument(a.name, a.description or "", bool(a.required))
                    for a in prompt.arguments or []
                )
                about = prompt.description or ""
                offer = Offer(name, "prompt", prompt.name, about, prompt.name, arguments)
                found.offers.append(offer)
        except ParleyError as exc:
            found.problem = f"The MCP server {name} could not list what it offers: {exc}"
        out.append(found)
    return out


async def fetch_offer(
    mcp: McpService, offer: Offer, arguments: Mapping[str, str] | None = None
) -> list[ContentBlock]:
    """The blocks of ``offer``: the resource's content, or the prompt's messages filled in
    with ``arguments`` (blank values are left out; a required one must be given)."""
    manager = mcp.manager
    what = f"the {offer.kind} {offer.name} of the MCP server {offer.server}"
    if manager is None:
        raise UserError(f"{what} cannot be read: the MCP servers are not running")
    given = {k: v for k, v in (arguments or {}).items() if v.strip()}
    missing = [a.name for a in offer.arguments if a.required and a.name not in given]
    if missing:
        raise UserError(f"{what} needs a value for {', '.join(missing)}")
    try:
        if offer.kind == "resource":
            blocks = await manager.read_resource(offer.server, offer.key)
        else:
            blocks = await manager.get_prompt(offer.server, offer.key, given or None)
    except ParleyError as exc:
        raise UserError(f"{what} could not be read: {exc}") from None
    if not blocks:
        raise UserError(f"{what} is empty")
    return blocks
