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

__all__ = ["IPAddress", "IPNetwork", "NetworkPolicy"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _private_kind(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public internet address, or ``None`` if it is one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return _private_kind(ip.ipv4_mapped)
    if ip.is_loopback:
        return "a loopback address (this computer)"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_private or not ip.is_global:
        return "a private or reserved address"
    return None


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
        return _private_kind(ip)

    async def resolve(self, host: str, port: int) -> list[str]:
        """Resolve ``host`` and return its addresses, in the order to try them; raise
        :class:`ToolError` if it cannot be resolved or any of its addresses may not be reached."""
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
                named = "" if literal is not None else f" (the address of {host!r})"
                raise ToolError(
                    f"{ip}{named} is {why}; web tools reach only public internet addresses "
                    "unless the user allows the local network in the settings"
                )
        return [str(ip) for ip in addresses]
