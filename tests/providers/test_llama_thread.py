"""Every local chat model loads and decodes on one thread, not the caller's, whichever models
were used: llama.cpp's OpenMP keeps a team of threads for each thread that runs a model, and
teams beyond the cores slow every decode down (see ``bench local_models``)."""

from __future__ import annotations

import threading

from app.providers.local import LlamaCppChatModel, bundled_model_path


async def test_two_local_models_run_on_the_same_thread_and_not_the_callers() -> None:
    path = bundled_model_path()
    assert path is not None
    first, second = LlamaCppChatModel(path, n_ctx=512), LlamaCppChatModel(path, n_ctx=1024)
    try:
        ran_on = {await m.on_worker(threading.get_ident) for m in (first, second)}
        assert len(ran_on) == 1 and threading.get_ident() not in ran_on
        await first.aload()
        first.close()  # freed on that thread; the thread stays for the others
        assert not first.loaded
        assert await second.on_worker(threading.get_ident) in ran_on
    finally:
        second.close()
