"""Parley's log files: rotating files in the log directory, with no secrets and no message text.

:func:`start_logging` is what the entry point calls. Records carry ids and kinds (a thread id,
a secret's name, a block type), never content: :class:`PrivacyFilter` turns any message or
content block handed to a logger into its id and kinds, replaces every secret value the
process knows with ``[secret]``, writes exceptions as their type and traceback without their
text, and keeps other libraries' records below WARNING out (some log request bodies).
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from app.core.private_files import open_private, private_folder
from app.core.state import Message
from app.secrets.known import known_secrets, remember_secret
from app.services.locations import Locations

__all__ = [
    "LOG_FILE",
    "PrivacyFilter",
    "remember_environment_secrets",
    "setup_logging",
    "start_logging",
    "stop_logging",
    "traceback_without_text",
]

LOG_FILE = "parley.log"
APP_LOGGER = "app"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD)", re.IGNORECASE)

_handler: logging.Handler | None = None


def remember_environment_secrets(environ: Mapping[str, str] | None = None) -> None:
    """Remember the values of variables named like keys (``*_API_KEY``, ``*_TOKEN``, ...)."""
    for name, value in (os.environ if environ is None else environ).items():
        if _SECRET_NAME.search(name):
            remember_secret(value)


def _describe(value: Any) -> Any:
    """A message or content block as its id and kinds; anything else as it is."""
    if isinstance(value, Message):
        kinds = ",".join(block.type for block in value.content) or "empty"
        return f"<{value.role} message {value.message_id} [{kinds}]>"
    if isinstance(value, list | tuple) and value and all(isinstance(v, Message) for v in value):
        return f"<{len(value)} messages>"
    if isinstance(value, BaseModel):
        kind = getattr(value, "type", None)
        return f"<{type(value).__name__}{' ' + kind if isinstance(kind, str) else ''}>"
    return value


def _exception_without_text(exc: BaseException | None) -> str:
    parts: list[str] = []
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        name = f"{type(exc).__module__}.{type(exc).__qualname__}".removeprefix("builtins.")
        frames = "".join(traceback.format_tb(exc.__traceback__))
        parts.append(f"Traceback (most recent call last):\n{frames}{name} (text not logged)")
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return "\n\nThe above was raised while handling:\n\n".join(reversed(parts))


def traceback_without_text(exc: BaseException) -> str:
    """``exc``'s traceback (and those it was raised from) with exception types and frames but
    no exception text, which can hold the user's words or a secret."""
    return _exception_without_text(exc)


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file whose write failures (a full or read-only disk) are dropped: a log
    line that cannot be written must never reach the user as a traceback."""

    def handleError(self, record: logging.LogRecord) -> None:
        return

    def _open(self) -> io.TextIOWrapper:
        return open_private(Path(self.baseFilename), encoding=self.encoding or "utf-8")


class PrivacyFilter(logging.Filter):
    """Makes a record safe to write: secrets out, content out, other libraries' chatter out."""

    def __init__(self, secrets: Callable[[], Iterable[str]] = known_secrets) -> None:
        super().__init__()
        self._secrets = secrets

    def redact(self, text: str) -> str:
        """``text`` with every known secret value replaced by ``[secret]``."""
        for value in sorted(self._secrets(), key=len, reverse=True):
            if value in text:
                text = text.replace(value, "[secret]")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` in place; drop it if it is another library's below WARNING."""
        ours = record.name == APP_LOGGER or record.name.startswith(APP_LOGGER + ".")
        if not ours and record.levelno < logging.WARNING:
            return False
        args = record.args
        if isinstance(args, Mapping):
            record.args = {k: _describe(v) for k, v in args.items()}
        elif args:
            record.args = tuple(_describe(v) for v in args)
        try:
            text = record.getMessage()
        except (TypeError, ValueError):
            text = f"{record.msg} (arguments not logged: they did not fit the message)"
        record.msg, record.args = self.redact(str(text)), None
        if record.exc_info:
            record.exc_text = self.redact(_exception_without_text(record.exc_info[1]))
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def setup_logging(
    log_dir: Path,
    *,
    level: int = logging.INFO,
    max_bytes: int = 1_000_000,
    backup_count: int = 5,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """Write Parley's logs to ``log_dir/parley.log``, rotated at ``max_bytes`` with
    ``backup_count`` older files kept; return the file. Calling it again moves the logs."""
    stop_logging()
    remember_environment_secrets(environ)
    private_folder(log_dir)
    path = log_dir / LOG_FILE
    handler = _QuietFileHandler(
        path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.addFilter(PrivacyFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    logging.getLogger(APP_LOGGER).setLevel(level)
    global _handler
    _handler = handler
    logging.getLogger(__name__).info("logging to %s", path)
    return path


def stop_logging() -> None:
    """Stop writing log files and close the current one (before deleting the logs)."""
    global _handler
    if _handler is not None:
        logging.getLogger().removeHandler(_handler)
        _handler.close()
        _handler = None


def start_logging(data_dir: str | os.PathLike[str] | None = None) -> str | None:
    """Set up the log files for the data directory in use; return a sentence for the user
    when the log folder cannot be written (Parley then runs without log files)."""
    folder = Locations.resolve(data_dir).logs
    try:
        setup_logging(folder)
    except OSError as exc:
        return f"Parley keeps no log files this time: it cannot write to {folder} ({exc.strerror})."
    return None
