"""Reading a file's text and cutting it into passages in a child process.

Text extraction (PDF, Word, Markdown) is CPU-bound Python and C that holds the interpreter
lock; done in a thread of the window's process it stalls the event loop. :class:`PassageReader`
hands the file's bytes (already read by the caller through the folder's descriptors, so the
child never resolves a path of its own) to one child process and gets the passages back in
small parts. The child is started on first use and again after it was stopped: a file that
crashes it, or keeps it busy past the time allowed, is reported as unreadable with the
reason, and the next file gets a fresh child. Cancelling stops the child at once.

The child is started as Parley's own entry (:mod:`app.core.child_process`), so nothing of
a program embedding Parley runs again in it; it ends when the parent does, refuses other
computers when the parent is offline, and its memory is capped at :data:`MEMORY_CAP`: a file
that needs more (a zip bomb) is listed as unreadable with that reason.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.core.child_process import Child, gate_offline, start_child
from app.core.errors import ParleyError
from app.knowledge import Passage, document_passages
from app.media.errors import Cancelled, IngestError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = [
    "MEMORY_CAP",
    "PART_SIZE",
    "PassageReader",
    "Reader",
    "ReaderUnavailable",
    "read_passages",
    "serve",
]

log = logging.getLogger(__name__)

PART_SIZE = 256
"""Passages sent back per message: each part is unpickled quickly, so the parent's
interpreter lock is never held long for one big file."""

MEMORY_CAP = 1 << 30
"""The address space the reader's child may use, in bytes (1 GiB): a file that needs more
stops it and is listed as needing too much memory; the next file gets a new child."""

Reader = Callable[[bytes, str, int], list[Passage]]
"""Reads ``(data, name, max_text_chars)`` into passages; raises :class:`IngestError` with the
reason when the file cannot be read. Run in the child: it must be a module-level function."""


class ReaderUnavailable(ParleyError):
    """The reader's child process could not be started: no file can be read (the fault is
    not the file's, so none is listed as unreadable)."""


_POLL_S = 0.05
_START_TIMEOUT_S = 120.0
_TOO_BIG = (
    f"reading it needs more than the {MEMORY_CAP >> 20} MiB of memory the document reader may "
    "use (a zip bomb?)"
)
_NOT_STARTED = "Parley's document reader could not be started, so no file was read"


def read_passages(data: bytes, name: str, max_text_chars: int) -> list[Passage]:
    """The passages of a document's bytes: its text as an attachment's is read, cut."""
    from app.media import IngestLimits, Job
    from app.media.ingest import document_text  # the readers load in the reading process

    text = document_text(data, name, IngestLimits(max_text_chars=max_text_chars), Job())
    return document_passages(text.text, pages=text.pages, markdown=text.markdown)


def allowed_seconds(size: int) -> float:
    """How long reading a file of ``size`` bytes may take before it is given up on."""
    return 60.0 + 4.0 * size / 1_000_000


def serve(conn: Connection) -> None:
    """The child's loop: take the reader to run, then read each file sent until the parent
    goes away."""
    try:
        read = conn.recv()
    except (EOFError, OSError):
        return
    conn.send(("ready",))
    while True:
        try:
            name, max_chars = conn.recv()
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            passages = read(data, name, max_chars)
        except IngestError as exc:
            conn.send(("error", exc.reason))
            continue
        except MemoryError:  # over the cap: this child is spent, the next file gets a new one
            del data
            conn.send(("spent", _TOO_BIG))
            return
        except Exception as exc:  # a reader's bug must not stop the rest of the folder
            log.info("could not index %s", name, exc_info=True)
            conn.send(("error", f"it could not be read ({type(exc).__name__})"))
            continue
        del data
        for at in range(0, len(passages), PART_SIZE):
            part = passages[at : at + PART_SIZE]
            conn.send(("part", [(p.text, p.start, p.end, p.page, p.heading) for p in part]))
        conn.send(("done",))


class PassageReader:
    """One child process that turns files' bytes into passages; see the module docstring.

    Used by one thread at a time (a folder's sync); :meth:`close` may come from another.
    ``read`` is what the child runs (a module-level function); ``timeout`` gives the
    seconds a file of a size may take. Each kind of file's reader loads in the child with
    the first file of its kind: a folder of Markdown never loads the PDF reader, so the child
    starts sooner and stays smaller.
    """

    def __init__(
        self,
        read: Reader = read_passages,
        timeout: Callable[[int], float] = allowed_seconds,
    ) -> None:
        self._read = read
        self._timeout = timeout
        self._lock = threading.Lock()
        self._process: Child | None = None
        self._conn: Connection | None = None
        self._closed = False
        self.started = 0
        """How many children were started (a crashed or stopped one is replaced)."""

    @property
    def running(self) -> bool:
        """Whether a child is running now."""
        process = self._process
        return process is not None and process.is_alive()

    def passages(
        self, data: bytes, name: str, max_text_chars: int, cancel: threading.Event
    ) -> list[Passage]:
        """The passages of ``data`` (the file ``name``'s bytes). Raises :class:`IngestError`
        with the reason when the file cannot be read, crashes the reader or takes too long,
        :class:`Cancelled` when ``cancel`` is set (or the reader closed) meanwhile, and
        :class:`ReaderUnavailable` when no child can be started."""
        for attempt in (1, 2):
            conn = self._ready(cancel)
            try:
                conn.send((name, max_text_chars))
                conn.send_bytes(data)
                break
            except OSError:  # the child had gone: once more with a new one
                self._stop()
                if attempt == 2:
                    raise ReaderUnavailable(_NOT_STARTED) from None
        deadline = time.monotonic() + self._timeout(len(data))
        out: list[Passage] = []
        while True:
            message = self._next(conn, cancel, deadline, name)
            if message[0] == "part":
                out.extend(Passage(*row) for row in message[1])
            elif message[0] == "done":
                return out
            elif message[0] == "spent":
                self._stop()
                raise IngestError(name, str(message[1]))
            else:
                raise IngestError(name, str(message[1]))

    def _next(
        self, conn: Connection, cancel: threading.Event, deadline: float, name: str
    ) -> tuple[Any, ...]:
        while True:
            if cancel.is_set() or self._closed:
                self._stop()
                raise Cancelled()
            left = deadline - time.monotonic()
            if left <= 0:
                self._stop()
                raise IngestError(
                    name, "reading it took too long, so it was stopped; it may be damaged"
                )
            try:
                if not conn.poll(min(_POLL_S, left)):
                    continue
                message: tuple[Any, ...] = conn.recv()
            except (EOFError, OSError):
                self._stop()
                if self._closed:
                    raise Cancelled() from None
                raise IngestError(
                    name, "the reader stopped while reading it; it may be damaged"
                ) from None
            return message

    def _ready(self, cancel: threading.Event) -> Connection:
        """The running child's end of the pipe, starting a child first if there is none (or
        if offline mode changed since it started)."""
        with self._lock:
            if self._closed:
                raise Cancelled()
            process = self._process
            if (
                self._conn is not None
                and process is not None
                and process.is_alive()
                and process.offline == gate_offline()
            ):
                return self._conn
        self._stop()
        with self._lock:
            if self._closed:
                raise Cancelled()
            try:
                process, ours = start_child(serve, memory=MEMORY_CAP, name="knowledge-reader")
            except (OSError, ValueError) as exc:  # no process can be started here
                log.warning("the knowledge reader could not be started", exc_info=True)
                raise ReaderUnavailable(_NOT_STARTED) from exc
            self._process, self._conn = process, ours
            self.started += 1
        try:
            ours.send(self._read)
        except Exception as exc:  # the reader cannot be handed over (not module-level)
            self._stop()
            log.warning("the knowledge reader could not be started", exc_info=True)
            raise ReaderUnavailable(_NOT_STARTED) from exc
        deadline = time.monotonic() + _START_TIMEOUT_S
        try:
            message = self._next(ours, cancel, deadline, "the reader")
        except IngestError:
            raise ReaderUnavailable(_NOT_STARTED) from None
        if message != ("ready",):
            self._stop()
            raise ReaderUnavailable(_NOT_STARTED)
        return ours

    def _stop(self) -> None:
        with self._lock:
            process, conn = self._process, self._conn
            self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.kill()
            process.join(5)

    def close(self) -> None:
        """Stop the child (a file being read is given up) and start no other."""
        with self._lock:
            self._closed = True
        self._stop()
