"""The share of mutants the tests kill, per module, after ``mutmut run`` (``make mutate``).

Reads ``mutmut results --all true`` (one ``name: status`` line per mutant) and prints a table:
killed (a test failed, or the mutant hung past its time limit), survived (every test passed),
and not run (no selected test reaches that function). The share killed is of the mutants the
selected tests reach.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

KILLED = {"killed", "timeout"}


def module_of(mutant: str) -> str:
    """``app.text.sizes.x_human_size__mutmut_3`` -> ``app.text.sizes`` (methods are
    ``module.xǁClassǁmethod__mutmut_N``)."""
    head = mutant.split("__mutmut_")[0]
    parts = head.split(".")
    while parts and (parts[-1].startswith("x_") or parts[-1].startswith("xǁ")):
        parts.pop()
    return ".".join(parts)


def tally(lines: list[str]) -> dict[str, Counter[str]]:
    """Statuses counted per module from ``name: status`` lines."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for line in lines:
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            counts[module_of(name)][status.strip()] += 1
    return counts


def table(counts: dict[str, Counter[str]]) -> str:
    """The per-module table with a total row."""
    rows = ["| Module | Mutants | Killed | Survived | Not run | Killed of those run |"]
    rows.append("|---|---|---|---|---|---|")
    total: Counter[str] = Counter()
    for module in sorted(counts):
        total.update(counts[module])
        rows.append(_row(module, counts[module]))
    rows.append(_row("**all**", total))
    return "\n".join(rows)


def _row(name: str, c: Counter[str]) -> str:
    killed = sum(c[s] for s in KILLED)
    survived = c["survived"]
    not_run = c["no tests"]
    ran = killed + survived
    share = f"{100 * killed / ran:.0f}%" if ran else "-"
    return f"| {name} | {sum(c.values())} | {killed} | {survived} | {not_run} | {share} |"


def main() -> int:
    mutmut = Path(sys.executable).with_name("mutmut")
    done = subprocess.run(
        [str(mutmut), "results", "--all", "true"], capture_output=True, text=True, check=False
    )
    counts = tally(done.stdout.splitlines())
    if not counts:
        print("no mutants found: run `mutmut run` first", file=sys.stderr)
        return 1
    print(table(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
