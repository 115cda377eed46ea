"""Run every benchmark module (``bench/bench_*.py``) and print one table.

Each module has ``run() -> list[Row]``. ``python -m bench NAME...`` runs only the named
modules (e.g. ``state``). The table starts with the machine it was measured on; a module that
fails is one row saying so and why, and the others still run.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

from bench.machine import describe_machine
from bench.table import Row, failed_row, render


def _section(name: str) -> list[Row]:
    try:
        module = importlib.import_module(f"bench.bench_{name}")
        return list(module.run())
    except Exception as exc:  # one failing section must not take the whole table with it
        return [failed_row(name, exc)]


def main(argv: list[str]) -> int:
    """Run the selected benchmark modules and print their rows."""
    import bench as pkg

    names = sorted(
        m.name[len("bench_") :]
        for m in pkgutil.iter_modules(pkg.__path__)
        if m.name.startswith("bench_")
    )
    chosen = [n for n in names if not argv or n in argv]
    print(describe_machine(), flush=True)
    rows: list[Row] = []
    for name in chosen:
        start = time.perf_counter()
        got = _section(name)
        rows.extend(got)
        print(f"[{name}: {len(got)} figures in {time.perf_counter() - start:.1f} s]", flush=True)
    print()
    print(describe_machine())
    print(render(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
