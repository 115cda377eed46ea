"""Command-line entry point: ``parley``.

``parley --parley-child module:function ...`` is how Parley starts its own child processes
(the knowledge reader, the math typesetter; see :mod:`app.core.child_process`): it is handled
before anything else, the same way in the packaged app and from source.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run Parley's command line (or, given ``--parley-child``, one of its child processes)."""
    from app.startup import quiet_start

    quiet_start()
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--parley-child"]:
        from app.core.child_process import child_main

        return child_main(args[1:])
    from app.cli import run

    return run(args, log=True)


if __name__ == "__main__":
    raise SystemExit(main())
