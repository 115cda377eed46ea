"""Bounded retries with exponential backoff, jitter, and respect for ``Retry-After``."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before sending a failed request again.

    Only failures before the first streamed chunk are retried: a reply that has started is never
    sent twice. A ``Retry-After`` longer than ``max_delay`` ends the retries at once.
    """

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 20.0
    jitter: float = 0.25

    def delay(self, attempt: int, retry_after: float | None = None) -> float | None:
        """Seconds to wait before retry number ``attempt`` (0-based), or None to give up."""
        if attempt >= self.max_retries:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_delay else None
        backoff = min(self.max_delay, self.base_delay * (2.0**attempt))
        return backoff * (1 + random.uniform(-self.jitter, self.jitter))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Read ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` from headers."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
