"""``parley serve`` in a process of its own, with a keyring of its own in memory.

``python -m tests.server._serve_child DATA_DIR [SERVE OPTIONS]`` runs ``parley serve keys add
ci-bot --data-dir DATA_DIR``, which prints the new key on one line, then ``parley serve SERVE
OPTIONS --data-dir DATA_DIR``, which prints where it serves on the next, until Ctrl+C. Both
commands run in this one process, so the key the first puts in the keyring is the one the
second takes; whatever model it serves is loaded here, not in the test's process.
"""

from __future__ import annotations

import sys

from app.__main__ import main
from tests.services.memory_keyring import MemoryKeyring, installed


def serve(data_dir: str, options: list[str]) -> int:
    """Make the key, then serve until interrupted; the exit status of the last command."""
    with installed(MemoryKeyring()):
        made = main(["serve", "keys", "add", "ci-bot", "--data-dir", data_dir])
        sys.stdout.flush()
        if made != 0:
            return made
        return main(["serve", *options, "--data-dir", data_dir])


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1], sys.argv[2:]))
