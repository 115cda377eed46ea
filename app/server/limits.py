"""Each key's daily tokens as the server keeps them: a request holds what it may use of its
key's day before it runs (its prompt, as estimated, and the reply it allows), so requests
of one key running at once cannot pass its limit together; what it used is counted, and
what it held given back, when it ends however it ends."""

from __future__ import annotations

import json
from typing import Protocol

from app.core.state.message_block import ImageBlock
from app.server.chat import ChatRequest
from app.server.errors import ApiError
from app.services.key_usage import KeyRefusal

__all__ = ["REPLY_ESTIMATE", "KeyLimits", "Reservation", "estimate", "reserve"]

REPLY_ESTIMATE = 1024
"""The tokens a reply is expected to take when the request does not say (no max_tokens)."""

_IMAGE_TOKENS = 800
_MESSAGE_TOKENS = 4


class KeyLimits(Protocol):
    """Each key's daily tokens: what a key has used is counted, and a key that has used its
    day's tokens is refused (all blocking: they read and write a small file)."""

    def refusal(self, name: str) -> str | None:
        """The sentence refusing the key ``name`` (``None``: it may ask)."""
        ...

    def spend(self, name: str, tokens: int) -> None:
        """Count ``tokens`` more for the key ``name`` today."""
        ...

    def reserve(self, name: str, tokens: int) -> KeyRefusal | None:
        """Hold ``tokens`` of the key's day for a request about to run, or say why not."""
        ...

    def hold_rest(self, name: str, reserved: int) -> int | None:
        """Hold what the key has left today beyond its other requests' holds for a request
        holding ``reserved``; that count (``None``: no daily limit)."""
        ...

    def settle(self, name: str, reserved: int, spent: int) -> None:
        """Give back what a request held and count what it used."""
        ...


def estimate(chat: ChatRequest) -> int:
    """A fair estimate of the tokens ``chat`` may use: about four characters a token for
    its messages and tools, a fixed share for each image, and the reply it allows (or
    :data:`REPLY_ESTIMATE`)."""
    chars = sum(len(m.text()) for m in chat.messages)
    chars += sum(len(json.dumps(t.parameters)) + len(t.name + t.description) for t in chat.tools)
    images = sum(isinstance(b, ImageBlock) for m in chat.messages for b in m.content)
    prompt = chars // 4 + _MESSAGE_TOKENS * len(chat.messages) + _IMAGE_TOKENS * images
    return prompt + (chat.config.max_tokens or REPLY_ESTIMATE)


class Reservation:
    """The tokens one request holds of its key's day: :meth:`count` what it used as its
    usage is heard, :meth:`settle` (once; later calls do nothing) when it ends."""

    def __init__(self, limits: KeyLimits | None, key: str, tokens: int) -> None:
        self._limits, self._key, self._tokens = limits, key, tokens
        self._spent = 0
        self._settled = False

    def hold_rest(self) -> int | None:
        """Hold all the key has left today (its other requests' holds aside) for a request
        whose use is not known ahead, an agent's run, and return it: the run must stop
        before passing it (``None``: no daily limit). Blocking, briefly."""
        if self._limits is None or self._settled:
            return None
        room = self._limits.hold_rest(self._key, self._tokens)
        if room is not None:
            self._tokens = max(self._tokens, room)
        return room

    def count(self, tokens: int) -> None:
        """Note ``tokens`` more used by the request."""
        self._spent += max(0, tokens)

    def settle(self) -> None:
        """Give the held tokens back and count the used ones (blocking, briefly: it runs
        even while the request is being cancelled)."""
        if self._settled:
            return
        self._settled = True
        if self._limits is not None:
            self._limits.settle(self._key, self._tokens, self._spent)


def reserve(limits: KeyLimits | None, key: str, chat: ChatRequest) -> Reservation:
    """Hold what ``chat`` may use of the key ``key``'s day (blocking: run it in a thread); an
    :class:`ApiError` (429, with Retry-After) when the key may not run it now."""
    tokens = estimate(chat)
    if limits is not None:
        refused = limits.reserve(key, tokens)
        if refused is not None:
            raise ApiError(
                429,
                refused.sentence,
                "rate_limit_error",
                "daily_token_limit",
                headers={"retry-after": str(refused.retry_after)},
            )
    return Reservation(limits, key, tokens)
