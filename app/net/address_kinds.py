"""What kind of address an IP address is, for the network guard: public, or why not.

The tables are written out here rather than taken from :mod:`ipaddress`, whose idea of
"private" and "global" changed between Python releases and still misses some special-purpose
ranges (IANA's registries of IPv4 and IPv6 special-purpose addresses are the source). An IPv6
address that carries an IPv4 address (IPv4-mapped, NAT64, 6to4) is judged by the IPv4
address inside it, since that is where the packets end up.
"""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import TypeVar

__all__ = ["not_public"]

_LOOPBACK = "a loopback address (this computer)"
_PRIVATE = "a private or reserved address"

_N = TypeVar("_N", IPv4Network, IPv6Network)


def _table(network: Callable[[str], _N], *rows: tuple[str, str]) -> tuple[tuple[_N, str], ...]:
    return tuple((network(net), why) for net, why in rows)


_V4 = _table(
    IPv4Network,
    ("0.0.0.0/8", "an unspecified address"),
    ("127.0.0.0/8", _LOOPBACK),
    ("169.254.0.0/16", "a link-local address"),
    ("224.0.0.0/4", "a multicast address"),
    ("255.255.255.255/32", "the broadcast address"),
    ("10.0.0.0/8", _PRIVATE),
    ("172.16.0.0/12", _PRIVATE),
    ("192.168.0.0/16", _PRIVATE),
    ("100.64.0.0/10", "a shared address (carrier-grade NAT)"),
    ("192.0.0.0/24", "an IETF protocol address"),
    ("192.0.2.0/24", "a documentation address"),
    ("198.51.100.0/24", "a documentation address"),
    ("203.0.113.0/24", "a documentation address"),
    ("192.88.99.0/24", "a 6to4 relay address"),
    ("198.18.0.0/15", "a benchmarking address"),
    ("240.0.0.0/4", "a reserved address"),
)

_V6 = _table(
    IPv6Network,
    ("::/128", "an unspecified address"),
    ("::1/128", _LOOPBACK),
    ("::ffff:0:0:0/96", "an IPv4-translated address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address"),
    ("100::/64", "a discard-only address"),
    ("2001::/32", "a Teredo tunnel address"),
    ("2001::/23", "an IETF protocol address"),
    ("2001:db8::/32", "a documentation address"),
    ("3fff::/20", "a documentation address"),
    ("5f00::/16", "a segment-routing address"),
    ("fc00::/7", _PRIVATE),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local address"),
    ("ff00::/8", "a multicast address"),
)
_GLOBAL_UNICAST = IPv6Network("2000::/3")
_NAT64 = IPv6Network("64:ff9b::/96")
_COMPATIBLE = IPv6Network("::/96")


def _embedded(ip: IPv6Address) -> tuple[str, IPv4Address] | None:
    """The IPv4 address that ``ip`` carries and the name of the form it carries it in."""
    if ip in _COMPATIBLE and int(ip) > 1:
        return "an IPv4-compatible", IPv4Address(int(ip))
    if ip.ipv4_mapped is not None:
        return "an IPv4-mapped", ip.ipv4_mapped
    if ip in _NAT64:
        return "a NAT64", IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return "a 6to4", ip.sixtofour
    return None


def _not_public_v4(ip: IPv4Address) -> str | None:
    for net, why in _V4:
        if ip in net:
            return why
    return None if ip.is_global else _PRIVATE


def not_public(ip: IPv4Address | IPv6Address) -> str | None:
    """Why ``ip`` is not a public internet address (a phrase such as "a loopback address
    (this computer)"), or ``None`` if it is one."""
    if isinstance(ip, IPv4Address):
        return _not_public_v4(ip)
    carried = _embedded(ip)
    if carried is not None:
        form, inner = carried
        why = _not_public_v4(inner)
        if why is None and form == "an IPv4-compatible":
            why = "a form no longer in use"
        return None if why is None else f"{form} address of {inner}, {why}"
    for net, why in _V6:
        if ip in net:
            return why
    if ip not in _GLOBAL_UNICAST:
        return "a reserved address"
    return None
