"""Which network addresses a web tool may reach: public ones, unless the user allows more.

Names are resolved here and every address they resolve to is checked; the connection then
goes to the checked address, so a name cannot be re-pointed between the check and the call.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.core.tools import ToolError
from app.net.address_kinds import not_public

__all__ = ["AddressRefused", "IPAddress", "IPNetwork", "NetworkPolicy"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class AddressRefused(ToolError):
    """An address the policy does not let a connection reach; the message is for web tools,
    the fields let other callers say it their own way."""

    def __init__(self, address: IPAddress, host: str, why: str) -> None:
        self.address, self.host, self.why = address, host, why
        self.redirected = False
        """Whether a redirect led to the address (set by whoever followed it)."""
        named = "" if host == str(address) else f" (the address of {host!r})"
        super().__init__(
            f"{address}{named} is {why}; web tools reach only public internet addresses "
            "unless the user allows the local network in the settings"
        )


@dataclass(frozen=True)
class NetworkPolicy:
    """Public addresses only, unless ``allow_private`` (everything) or an ``allowed`` network
    says otherwise."""

    allow_private: bool = False
    allowed: tuple[IPNetwork, ...] = field(default=())

    @classmethod
    def of(cls, allow_private: bool, allowed: Iterable[str] = ()) -> NetworkPolicy:
        """Build a policy from settings: a flag and network strings such as ``10.0.0.0/8``."""
        return cls(allow_private, tuple(ipaddress.ip_network(n, strict=False) for n in allowed))

    def refusal(self, ip: IPAddress) -> str | None:
        """Why ``ip`` may not be reached, or ``None`` if it may."""
        if self.allow_private or any(ip in net for net in self.allowed):
            return None
        return not_public(ip)

    async def resolve(self, host: str, port: int) -> list[str]:
        """Resolve ``host`` and return its addresses, in the order to try them; raise
        :class:`ToolError` if it cannot be resolved, :class:`AddressRefused` if any of its
        addresses may not be reached."""
        try:
            literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            addresses = [literal]
        else:
            loop = asyncio.get_running_loop()
            try:
                infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError) as exc:
                raise ToolError(f"the host name {host!r} could not be resolved ({exc})") from None
            addresses = list(
                dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos)
            )
            if not addresses:
                raise ToolError(f"the host name {host!r} has no address")
        for ip in addresses:
            why = self.refusal(ip)
            if why is not None:
                raise AddressRefused(ip, str(ip) if literal is not None else host, why)
        return [str(ip) for ip in addresses]
