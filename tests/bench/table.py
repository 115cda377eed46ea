"""The one table every benchmark reports into."""

from __future__ import annotations

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


def render(rows: list[Row]) -> str:
    """Format rows as a fixed-width table."""
    head = ("benchmark", "Parley", "peer", "Parley better by", "target", "met")
    lines = []
    for r in rows:
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
