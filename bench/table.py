"""The one table every benchmark reports into."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One measured figure, with the peer's figure from the same run and the target."""

    group: str
    name: str
    value: float
    unit: str
    peer: float | None = None
    peer_name: str = ""
    target: str = ""
    ok: bool | None = None
    higher_is_better: bool = False
    failure: str = ""
    """Why the figure could not be measured (the row then shows that instead of a value)."""


def failed_row(section: str, exc: BaseException) -> Row:
    """The row of a section that stopped with ``exc``: it failed, and why, in one line."""
    why = str(exc).strip().splitlines()[-1] if str(exc).strip() else ""
    if isinstance(exc, subprocess.CalledProcessError) and exc.stderr:
        lines = [x for x in str(exc.stderr).strip().splitlines() if x.strip()]
        why = lines[-1] if lines else why
    reason = f"{type(exc).__name__}: {why}" if why else type(exc).__name__
    return Row(section, "section failed", float("nan"), "", failure=reason[:200])


def render(rows: list[Row]) -> str:
    """Format rows as a fixed-width table."""
    head = ("benchmark", "Parley", "peer", "Parley better by", "target", "met")
    lines = []
    for r in rows:
        if r.failure:
            lines.append((f"{r.group}: {r.name}", "FAILED", r.failure, "", r.target, "NO"))
            continue
        peer = f"{r.peer:.4g} {r.unit} ({r.peer_name})" if r.peer is not None else ""
        ratio = ""
        if r.peer and r.value:
            better = r.value / r.peer if r.higher_is_better else r.peer / r.value
            ratio = f"{better:.2g}x"
        met = "" if r.ok is None else ("yes" if r.ok else "NO")
        lines.append(
            (f"{r.group}: {r.name}", f"{r.value:.4g} {r.unit}", peer, ratio, r.target, met)
        )
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*head), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*line) for line in lines]
    return "\n".join(out)
