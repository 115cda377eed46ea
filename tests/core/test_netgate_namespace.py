"""Offline, against another computer that would notice: Parley's gate runs in a private
network namespace whose only way out is a link to a second namespace, where a listener that
is both the DNS server and 192.0.2.1 logs every packet. Every way out (UDP sends, each lookup
function, a name given straight to a socket, asyncio's openings) must be refused by the gate
and the listener must receive nothing but the controls sent once the gate is online again.

Making network namespaces needs root (``ip netns``); elsewhere the test is skipped, and
``test_netgate.py`` checks the same refusals on this computer's loopback addresses."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).with_name("netns_programs.py")


@dataclass(frozen=True)
class Namespaces:
    """The namespace Parley runs in and the one the other computer listens in."""

    inside: str
    other: str
    log: Path


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


def _why_not() -> str | None:
    if sys.platform != "linux" or shutil.which("ip") is None:
        return "network namespaces need Linux's ip command"
    if os.geteuid() != 0:
        return "making network namespaces needs root (run the tests as root to include this one)"
    probe = f"parleyprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"this system cannot make a network namespace ({made.stderr.strip()})"
    try:
        entered = subprocess.run(["ip", "netns", "exec", probe, "true"], capture_output=True)
    finally:
        _ip("netns", "del", probe)
    if entered.returncode != 0:
        why = entered.stderr.decode(errors="replace").strip()
        return f"this system cannot run a program in a network namespace ({why})"
    return None


@pytest.fixture
def namespaces(tmp_path: Path) -> Iterator[Namespaces]:
    """Two namespaces linked by a veth pair; the other one is 10.231.0.2 and 192.0.2.1 and
    the inside one's DNS server and route out; a listener logs what reaches it."""
    why = _why_not()
    if why is not None:
        pytest.skip(why)
    inside, other = f"parley{os.getpid()}in", f"parley{os.getpid()}out"
    resolv = Path("/etc/netns") / inside
    had_netns = resolv.parent.exists()
    listener: subprocess.Popen[str] | None = None
    try:
        _ip("netns", "add", inside)
        _ip("netns", "add", other)
        _ip("-n", inside, "link", "add", "veth0", "type", "veth", "peer", "veth1", "netns", other)
        _ip("-n", inside, "addr", "add", "10.231.0.1/24", "dev", "veth0")
        _ip("-n", other, "addr", "add", "10.231.0.2/24", "dev", "veth1")
        _ip("-n", other, "addr", "add", "192.0.2.1/32", "dev", "veth1")
        for name, dev in ((inside, "veth0"), (other, "veth1")):
            _ip("-n", name, "link", "set", "lo", "up")
            _ip("-n", name, "link", "set", dev, "up")
        _ip("-n", inside, "route", "add", "default", "via", "10.231.0.2")
        # `ip netns exec` shows this file as /etc/resolv.conf inside the namespace
        resolv.mkdir(parents=True)
        (resolv / "resolv.conf").write_text("nameserver 10.231.0.2\noptions timeout:1 attempts:1\n")
        log = tmp_path / "received.log"
        log.touch()
        listener = subprocess.Popen(
            ["ip", "netns", "exec", other, sys.executable, str(PROGRAMS), "listen", str(log)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert listener.stdout is not None
        assert listener.stdout.readline().strip() == "ready"
        yield Namespaces(inside, other, log)
    finally:
        if listener is not None:
            listener.kill()
            listener.communicate()
        shutil.rmtree(resolv, ignore_errors=True)
        if not had_netns:
            with contextlib.suppress(OSError):
                resolv.parent.rmdir()
        for name in (inside, other):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def _received(log: Path, wanted: int) -> list[str]:
    """The listener's lines, once it has logged ``wanted`` of them (or after 5 s)."""
    deadline = time.monotonic() + 5
    lines = log.read_text().splitlines()
    while len(lines) < wanted and time.monotonic() < deadline:
        time.sleep(0.05)
        lines = log.read_text().splitlines()
    return lines


def test_offline_nothing_reaches_another_computer_by_any_way(namespaces: Namespaces) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_OFFLINE"}
    probe = subprocess.run(
        ["ip", "netns", "exec", namespaces.inside, sys.executable, str(PROGRAMS), "probe"],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    outcome = json.loads(probe.stdout)
    assert len(outcome) == 16
    for way, (kind, text) in outcome.items():
        assert kind == "OfflineRefusal", f"{way}: {kind}: {text}"
        assert text.startswith("Parley is offline, so it did not"), f"{way}: {text}"
    # the controls, sent online afterwards, show a leak would have been seen
    lines = _received(namespaces.log, 2)
    assert all("control" in line for line in lines), lines
    assert "udp 9 from 10.231.0.1: b'control'" in lines
    assert any(line.startswith("udp 53 from 10.231.0.1:") for line in lines), lines
