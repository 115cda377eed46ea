"""How many threads decode a local model fastest on this machine.

llama.cpp's best thread count for generating one token at a time is not simply "all cores": on
a small or busy machine one thread can beat two (81 against 62 tokens a second, measured on 2
cores). So the first time a model file is loaded on a CPU, :func:`measure` decodes a few tokens
with each candidate count (:func:`candidates`) on the live context, and the fastest is kept in
the data folder (:data:`FILE_NAME`) under the file and the CPU (:func:`calibration_key`) and
used from then on; so is the count that reads a prompt (many tokens at once) fastest, measured
on a short prompt (on a busy machine a second thread can make both many times slower). A
decode count given by the caller, or ``PARLEY_LLAMA_THREADS``, is used as it is (prompts are
then read on every usable core).

This module imports no llama-cpp-python: it works on the loaded ``llama_cpp.Llama`` it is
handed, so opening a workspace does not load llama.cpp.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ENV",
    "FILE_NAME",
    "ThreadChoice",
    "calibration_key",
    "candidates",
    "choose_threads",
    "env_threads",
    "measure",
    "physical_cores",
    "set_threads",
    "usable_cpus",
]

ENV = "PARLEY_LLAMA_THREADS"
FILE_NAME = "llama-threads.json"
TOKENS = 8  # decoded with each candidate: enough to rank them, short enough to go unnoticed
MAX_THREADS = 16
BATCH_TOKENS = 32  # a short prompt read with each candidate
GIVE_UP = 4.0  # a count this many times slower than the best is not measured further

_log = logging.getLogger(__name__)
_LOCK = threading.Lock()
_KNOWN: dict[
    str, tuple[int, int]
] = {}  # measured in this process, for models opened without a data folder


@dataclass(frozen=True)
class ThreadChoice:
    """The decode thread count chosen, why (``given``, ``env``, ``remembered``, ``measured``
    or ``only``, one core), the tokens per second each candidate decoded at when measured now, and
    how long measuring took; the same for reading a prompt (:func:`measure_batch`)."""

    threads: int
    source: str
    speeds: dict[int, float] = field(default_factory=dict)
    seconds: float = 0.0
    batch_threads: int = 0
    """Threads reading prompts (0: as the model was loaded, every usable core)."""
    batch_speeds: dict[int, float] = field(default_factory=dict)


def usable_cpus() -> int:
    """The logical CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _cpuinfo() -> list[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def physical_cores() -> int:
    """Physical cores this process may use (logical CPUs where the split is unknown)."""
    cores: set[tuple[str, str]] = set()
    package = core = ""
    for line in [*_cpuinfo(), ""]:
        name, _, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if name == "physical id":
            package = value
        elif name == "core id":
            core = value
        elif not name and core:
            cores.add((package, core))
            package = core = ""
    return max(1, min(len(cores) or usable_cpus(), usable_cpus()))


def _cpu_name() -> str:
    for line in _cpuinfo():
        name, _, value = line.partition(":")
        if name.strip() == "model name":
            return value.strip()
    return platform.processor() or platform.machine()


def candidates(cores: int | None = None) -> list[int]:
    """The thread counts worth trying: 1, powers of two below the physical cores, and the
    cores themselves (at most :data:`MAX_THREADS`)."""
    top = max(1, min(cores or physical_cores(), MAX_THREADS))
    found = {top}
    n = 1
    while n < top:
        found.add(n)
        n *= 2
    return sorted(found)


def calibration_key(path: Path) -> str:
    """The model file (where, how big, when written) and the CPU it is measured on."""
    try:
        stat = path.stat()
        written = f"{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        written = "?"
    return f"{path.resolve()}|{written}|{_cpu_name()}|{physical_cores()}/{usable_cpus()} cpus"


def env_threads() -> int | None:
    """``PARLEY_LLAMA_THREADS`` as a count, when set to one (a bad value is logged, ignored)."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return None
    if raw.isdigit() and 1 <= int(raw) <= 256:
        return int(raw)
    _log.warning("%s=%r is not a thread count from 1 to 256; measuring instead.", ENV, raw)
    return None


def set_threads(llama: Any, threads: int, batch_threads: int | None = None) -> None:
    """Make the live context of ``llama`` decode on ``threads`` threads (and process prompts
    on ``batch_threads``, unchanged when ``None``); llama.cpp reads the counts at each
    decode, so no reload is needed."""
    batch = batch_threads or int(llama.context_params.n_threads_batch)
    llama._ctx.set_n_threads(threads, batch)
    llama.n_threads = llama.context_params.n_threads = threads
    llama.n_threads_batch = llama.context_params.n_threads_batch = batch


def measure(llama: Any, counts: list[int], tokens: int = TOKENS) -> dict[int, float]:
    """Tokens per second ``llama`` decodes one at a time with each thread count in
    ``counts``, in two interleaved rounds (so a burst of other work on the machine does
    not favour one count). A count whose token takes :data:`GIVE_UP` times longer than the
    best so far is dropped at once: on a busy machine too many threads can decode thirty
    times slower, and measuring them in full would cost seconds. The context is left empty,
    on the last count tried: setting the fastest is the caller's. Must run on the thread
    that decodes the model."""
    token = llama.token_bos()
    token = token if token >= 0 else 0
    half = max(1, tokens // 2)
    if 2 + 2 * half * len(counts) >= llama.n_ctx():
        return {}
    spent = dict.fromkeys(counts, 0.0)
    made = dict.fromkeys(counts, 0)
    dropped: set[int] = set()
    llama.reset()
    llama.eval([token, token])  # warm: the first decode allocates
    for _ in range(2):
        for n in counts:
            if n in dropped:
                continue
            set_threads(llama, n)
            for _ in range(half):
                start = time.perf_counter()
                llama.eval([token])
                took = time.perf_counter() - start
                spent[n] += took
                made[n] += 1
                best = min((spent[c] / made[c] for c in counts if made[c]), default=took)
                if took > GIVE_UP * best:
                    dropped.add(n)
                    break
    llama.reset()
    return {n: made[n] / spent[n] for n in counts if spent[n] > 0}


def measure_batch(llama: Any, counts: list[int], tokens: int = BATCH_TOKENS) -> dict[int, float]:
    """Tokens per second ``llama`` reads a prompt of ``tokens`` tokens at with each thread
    count in ``counts`` (two interleaved rounds, a count :data:`GIVE_UP` times slower than
    the best dropped); the context is left empty. Must run on the decoding thread."""
    token = llama.token_bos()
    token = token if token >= 0 else 0
    if tokens >= llama.n_ctx():
        return {}
    decode = int(llama.context_params.n_threads)
    spent = dict.fromkeys(counts, 0.0)
    rounds = dict.fromkeys(counts, 0)
    for _ in range(2):
        for n in counts:
            if rounds[n] < 0:
                continue
            set_threads(llama, decode, n)
            llama.reset()
            start = time.perf_counter()
            llama.eval([token] * tokens)
            took = time.perf_counter() - start
            spent[n] += took
            rounds[n] += 1
            best = min((spent[c] / rounds[c] for c in counts if rounds[c] > 0), default=took)
            if took > GIVE_UP * best:
                rounds[n] = -rounds[n]  # dropped: measured no further
    llama.reset()
    return {n: abs(rounds[n]) * tokens / spent[n] for n in counts if spent[n] > 0}


def _read(file: Path) -> dict[str, Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 256:
        return value
    return None


def _remembered(file: Path | None, key: str) -> tuple[int, int] | None:
    """The decode and prompt thread counts kept for ``key`` (0: the prompt's not kept)."""
    if key in _KNOWN:
        return _KNOWN[key]
    if file is None:
        return None
    entry = _read(file).get(key)
    if not isinstance(entry, dict) or (threads := _count(entry.get("threads"))) is None:
        return None
    return threads, _count(entry.get("batch_threads")) or 0


def _remember(file: Path | None, key: str, choice: ThreadChoice) -> None:
    _KNOWN[key] = (choice.threads, choice.batch_threads)
    if file is None:
        return
    with _LOCK:
        data = _read(file)
        data[key] = {
            "threads": choice.threads,
            "tokens_per_second": {str(n): round(s, 1) for n, s in choice.speeds.items()},
            "batch_threads": choice.batch_threads,
            "prompt_tokens_per_second": {
                str(n): round(s, 1) for n, s in choice.batch_speeds.items()
            },
        }
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            partial = file.with_suffix(".tmp")
            partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
            partial.replace(file)
        except OSError as exc:  # measured again next time: slower to start, nothing lost
            _log.warning("Could not keep the measured thread count in %s: %s", file, exc)


def choose_threads(
    llama: Any, path: Path, file: Path | None, *, given: int | None = None
) -> ThreadChoice:
    """Set and return the decode thread count for ``llama`` (loaded from ``path``): the
    one ``given``, else ``PARLEY_LLAMA_THREADS``, else the one remembered in ``file`` for
    this file and CPU, else the fastest of :func:`candidates` measured now (and remembered).
    Must run on the thread that decodes the model."""
    if given:
        choice = ThreadChoice(given, "given")
    elif (env := env_threads()) is not None:
        choice = ThreadChoice(env, "env")
    elif (known := _remembered(file, key := calibration_key(path))) is not None:
        choice = ThreadChoice(known[0], "remembered", batch_threads=known[1])
    else:
        counts = candidates()
        if len(counts) == 1:
            set_threads(llama, counts[0])
            return ThreadChoice(counts[0], "only")
        start = time.perf_counter()
        speeds = measure(llama, counts)
        best = max(speeds, key=speeds.__getitem__) if speeds else counts[-1]
        set_threads(llama, best)
        # a count that decodes many times slower is starved of cores: it reads prompts no
        # better, and a prompt read with it could take seconds
        fed = [n for n in counts if speeds.get(n, 0.0) * GIVE_UP >= speeds.get(best, 0.0)]
        reading = measure_batch(llama, fed) if len(fed) > 1 else {}
        batch = max(reading, key=reading.__getitem__) if reading else (fed or [0])[0]
        seconds = time.perf_counter() - start
        choice = ThreadChoice(best, "measured", speeds, seconds, batch, reading)
        _remember(file, key, choice)
        _log.info("Decoding %s on %d threads, reading prompts on %d (measured %s, %s in "
                  "%.2f s)", path.name, best, batch, speeds, reading, seconds)  # fmt: skip
    set_threads(llama, choice.threads, choice.batch_threads or None)
    return choice
