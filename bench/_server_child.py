"""``parley serve`` in a process of its own, as the command runs it, for the server bench.

``python -m bench._server_child MODEL DATA_DIR KEY`` serves the workspace in ``DATA_DIR``
with ``MODEL`` as ``parley`` on a free port of 127.0.0.1, taking only ``KEY``; it prints the
port on one line once it listens, and serves until it is terminated. A process of its own,
like llama-cpp-python's server beside it: the bench's clients do not share its interpreter.
"""

from __future__ import annotations

import asyncio
import sys

from app.server.run import ParleyServer, listen, workspace_models


async def main(model: str, data_dir: str, key: str) -> None:
    sock = listen("127.0.0.1", 0)
    async with workspace_models(data_dir, model) as opened:
        server = ParleyServer(opened.models, lambda given: "bench" if given == key else None)
        print(sock.getsockname()[1], flush=True)
        await server.serve(sock)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
