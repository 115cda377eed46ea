"""Run every benchmark module (``tests/bench/bench_*.py``) and print one table.

Each module has ``run() -> list[Row]``. ``python -m tests.bench NAME...`` runs only the named
modules (e.g. ``state``).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

from tests.bench.table import Row, render


def main(argv: list[str]) -> int:
    """Run the selected benchmark modules and print their rows."""
    import tests.bench as pkg

    names = sorted(
        m.name[len("bench_") :]
        for m in pkgutil.iter_modules(pkg.__path__)
        if m.name.startswith("bench_")
    )
    chosen = [n for n in names if not argv or n in argv]
    rows: list[Row] = []
    for name in chosen:
        start = time.perf_counter()
        module = importlib.import_module(f"tests.bench.bench_{name}")
        got = module.run()
        rows.extend(got)
        print(f"[{name}: {len(got)} figures in {time.perf_counter() - start:.1f} s]", flush=True)
    print()
    print(render(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
