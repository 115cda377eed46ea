"""Load a GGUF file with llama-cpp-python, avoiding llama.cpp code paths that crash the process.

On CPUs that advertise AMX, llama.cpp's AMX weight buffers can segfault inside a VM whose kernel
exposes the flag without the tile state; a crash would take the whole app down. So extra buffer
types (weight repacking, AMX) are off there unless asked for explicitly.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import llama_cpp.llama_cpp as llama_c

from app.providers.llama_threads import physical_cores, usable_cpus

_PATCH_LOCK = threading.Lock()

UBATCH = 256
"""Prompt tokens llama.cpp computes in one pass (its default is 512). Its compute buffer is
sized for a whole pass and its pages become resident as long prompts fill them: a 570-token
prompt to the bundled model grew the process by 22 MB at 512, 14 MB at 256 (8 at 128), and
one thread read a 546-token prompt as fast at each (medians of 103-109, 104-106 and 114-115
tokens a second at 512, 256 and 128, machine load 4-6)."""


def cpu_has_amx() -> bool:
    """Whether the CPU advertises AMX (read from /proc/cpuinfo; False where unknown)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return "amx_tile" in line.split()
    except OSError:
        return False
    return False


@contextlib.contextmanager
def model_params(extra_buffers: bool | None = None) -> Iterator[None]:
    """While active, models load with ``use_extra_bufts`` off (auto: off when the CPU has AMX)."""
    use_extra = (not cpu_has_amx()) if extra_buffers is None else extra_buffers
    if use_extra:
        yield
        return
    with _PATCH_LOCK:
        original = llama_c.llama_model_default_params

        def patched() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        llama_c.llama_model_default_params = patched
        try:
            yield
        finally:
            llama_c.llama_model_default_params = original


def load_llama(
    path: str | Path,
    *,
    n_ctx: int = 4096,
    n_threads: int | None = None,
    n_threads_batch: int | None = None,
    extra_buffers: bool | None = None,
    n_ubatch: int = UBATCH,
    **kwargs: Any,
) -> llama_cpp.Llama:
    """Load ``path`` quietly, with the crash-safe parameters of :func:`model_params`.

    Prompts are processed on every usable core unless told otherwise; decoding starts on the
    physical cores, and :func:`app.providers.llama_threads.choose_threads` sets the count this
    machine decodes fastest with once the model is loaded. A prompt is read :data:`UBATCH`
    tokens at a time."""
    threads = n_threads or physical_cores()
    with model_params(extra_buffers):
        return llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=n_threads_batch or usable_cpus(),
            n_ubatch=n_ubatch,
            verbose=False,
            **kwargs,
        )
