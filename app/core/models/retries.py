"""Telling whoever runs a turn that a provider is waiting to try again.

A provider that backs off (rate limit, server error) calls :func:`notify_retry`; the code
that started the turn listens with :func:`listening_for_retries`. The listener lives in a
context variable, so it follows the turn into every task it starts and no other turn hears it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["RetryNotice", "listening_for_retries", "notify_retry"]


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """A provider will try again after ``delay`` seconds (``attempt`` counts from 1)."""

    provider: str
    attempt: int
    delay: float
    reason: str


RetryListener = Callable[[RetryNotice], None]

_listener: ContextVar[RetryListener | None] = ContextVar("parley_retry_listener", default=None)


def notify_retry(notice: RetryNotice) -> None:
    """Tell the current turn's listener, if any, about a retry."""
    listener = _listener.get()
    if listener is not None:
        listener(notice)


@contextmanager
def listening_for_retries(listener: RetryListener) -> Iterator[None]:
    """Route retries announced inside this block (and tasks started in it) to ``listener``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)
