"""The network guard's verdict on each kind of address: public ones pass; loopback, private
and special-purpose ones are refused with their kind, and so is an IPv6 address that carries
such an IPv4 address (IPv4-mapped or -compatible, NAT64, 6to4)."""

from __future__ import annotations

import ipaddress

import pytest

from app.net.guard import NetworkPolicy
from app.tools.web import fetch_tool
from tests.tools.helpers import refused

LOOPBACK = "a loopback address (this computer)"
PRIVATE = "a private or reserved address"
DOCS = "a documentation address"

REFUSED = [
    # the addresses the guard let through before
    ("::7f00:1", f"an IPv4-compatible address of 127.0.0.1, {LOOPBACK}"),
    ("64:ff9b::7f00:1", f"a NAT64 address of 127.0.0.1, {LOOPBACK}"),
    ("2002:7f00:1::", f"a 6to4 address of 127.0.0.1, {LOOPBACK}"),
    ("192.0.0.8", "an IETF protocol address"),
    ("fec0::", "a site-local address"),
    # IPv4-mapped and -compatible IPv6 (::ffff:0:0/96, ::/96)
    ("::ffff:127.0.0.1", f"an IPv4-mapped address of 127.0.0.1, {LOOPBACK}"),
    ("::ffff:10.0.0.1", f"an IPv4-mapped address of 10.0.0.1, {PRIVATE}"),
    ("::ffff:169.254.169.254", "an IPv4-mapped address of 169.254.169.254, a link-local address"),
    ("::10.0.0.1", f"an IPv4-compatible address of 10.0.0.1, {PRIVATE}"),
    ("::8.8.8.8", "an IPv4-compatible address of 8.8.8.8, a form no longer in use"),
    ("::ffff:0:127.0.0.1", "an IPv4-translated address"),
    # NAT64: the well-known prefix carries the IPv4 address; the local-use one is local
    ("64:ff9b::192.168.1.1", f"a NAT64 address of 192.168.1.1, {PRIVATE}"),
    ("64:ff9b::a9fe:a9fe", "a NAT64 address of 169.254.169.254, a link-local address"),
    ("64:ff9b:1::808:808", "a local-use NAT64 address"),
    # 6to4 with a private, loopback or unspecified IPv4 address inside
    ("2002:c0a8:101::1", f"a 6to4 address of 192.168.1.1, {PRIVATE}"),
    ("2002:a00:1::", f"a 6to4 address of 10.0.0.1, {PRIVATE}"),
    ("2002::1", "a 6to4 address of 0.0.0.0, an unspecified address"),
    # Teredo (its server and client addresses are not where the packets go), other IETF ones
    ("2001::4136:e378:8000:63bf:3fff:fdd2", "a Teredo tunnel address"),
    ("2001:2::1", "an IETF protocol address"),
    ("100::1", "a discard-only address"),
    ("5f00::1", "a segment-routing address"),
    # site-local, unique local, link-local IPv6
    ("fec0::1", "a site-local address"),
    ("feff::1", "a site-local address"),
    ("fd00::1", PRIVATE),
    ("fe80::1", "a link-local address"),
    # IPv4 special-purpose ranges
    ("192.0.0.1", "an IETF protocol address"),
    ("192.0.0.170", "an IETF protocol address"),
    ("198.18.0.1", "a benchmarking address"),
    ("198.19.255.255", "a benchmarking address"),
    ("100.64.0.1", "a shared address (carrier-grade NAT)"),
    ("100.127.255.254", "a shared address (carrier-grade NAT)"),
    ("0.0.0.0", "an unspecified address"),
    ("0.1.2.3", "an unspecified address"),
    ("192.88.99.1", "a 6to4 relay address"),
    ("127.0.0.1", LOOPBACK),
    ("127.255.0.1", LOOPBACK),
    ("::1", LOOPBACK),
    ("::", "an unspecified address"),
    ("10.1.2.3", PRIVATE),
    ("172.31.0.1", PRIVATE),
    ("192.168.0.1", PRIVATE),
    ("169.254.169.254", "a link-local address"),
    # multicast, reserved, broadcast
    ("224.0.0.1", "a multicast address"),
    ("239.255.255.250", "a multicast address"),
    ("ff02::1", "a multicast address"),
    ("ff0e::1", "a multicast address"),
    ("240.0.0.1", "a reserved address"),
    ("254.1.2.3", "a reserved address"),
    ("255.255.255.255", "the broadcast address"),
    ("4000::1", "a reserved address"),
    ("e000::1", "a reserved address"),
    # documentation
    ("192.0.2.1", DOCS),
    ("198.51.100.7", DOCS),
    ("203.0.113.9", DOCS),
    ("2001:db8::1", DOCS),
    ("3fff::1", DOCS),
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "100.63.255.255",  # just below carrier-grade NAT
    "100.128.0.1",  # just above it
    "198.17.255.255",
    "198.20.0.1",
    "192.0.1.1",
    "223.255.255.254",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82a::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",  # how an IPv6-only network reaches a public IPv4 site
    "2002:808:808::1",  # 6to4 of 8.8.8.8
    "2001:4860:4860::8888",
]


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_each_special_address_is_refused_with_its_kind(address: str, why: str) -> None:
    assert NetworkPolicy().refusal(ipaddress.ip_address(address)) == why


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert NetworkPolicy().refusal(ipaddress.ip_address(address)) is None


def test_the_user_can_still_allow_a_network_or_everything() -> None:
    nat64 = ipaddress.ip_address("64:ff9b::7f00:1")
    assert NetworkPolicy.of(False, ["64:ff9b::/96"]).refusal(nat64) is None
    assert NetworkPolicy.of(True).refusal(ipaddress.ip_address("fec0::1")) is None
    assert NetworkPolicy.of(False, ["10.0.0.0/8"]).refusal(nat64) is not None


@pytest.mark.parametrize(
    "host", ["[::7f00:1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "192.0.0.8", "[fec0::]"]
)
async def test_the_web_tools_refuse_them_before_connecting(host: str) -> None:
    said = await refused(fetch_tool(), url=f"http://{host}:9/")
    shown = host.strip("[]")
    assert said.startswith(f"Tool 'fetch_url' failed: {shown} is ")
    assert said.endswith(
        "; web tools reach only public internet addresses unless the user allows the local "
        "network in the settings"
    )
