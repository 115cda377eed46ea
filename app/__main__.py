"""Command-line entry point: ``parley``."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run Parley's command line."""
    from app.cli import run

    return run(sys.argv[1:] if argv is None else argv, log=True)


if __name__ == "__main__":
    import multiprocessing

    # a packaged Parley's child processes (formulas, the knowledge reader) start here
    multiprocessing.freeze_support()
    raise SystemExit(main())
