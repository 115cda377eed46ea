"""``SettingsStore``: the user's settings as every service and settings page shares them.

One typed :class:`~app.services.settings.file.AppSettings` is current; :meth:`SettingsStore.save`
keeps a new one, emits :class:`SettingsChanged` on the bus and writes it to disk off the loop,
so whoever depends on a setting (the network gate, remote models, the built-in tools) follows.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from app.services.bus import EventBus
from app.services.events import SettingsChanged
from app.services.settings.file import AppSettings, load_settings, save_settings

__all__ = ["SettingsStore"]


class SettingsStore:
    """The current settings of one data directory, and the one way to change them."""

    def __init__(self, data_dir: Path, events: EventBus, current: AppSettings | None = None):
        self._data_dir = data_dir
        self._events = events
        self._current = current or AppSettings()
        self._writing = threading.Lock()

    @classmethod
    async def load(cls, data_dir: Path, events: EventBus) -> SettingsStore:
        """The settings saved in ``data_dir`` (defaults when there are none), read off the loop."""
        return cls(data_dir, events, await asyncio.to_thread(load_settings, data_dir))

    @property
    def current(self) -> AppSettings:
        """The settings as they are now (change them with :meth:`save`)."""
        return self._current

    async def save(self, settings: AppSettings) -> None:
        """Keep ``settings``, write them to disk and tell the bus what changed."""
        self.use(settings)
        await asyncio.to_thread(self._write)

    def _write(self) -> None:
        """Write the settings current now (off the loop). Saves made together each write in
        turn, and each the newest: the file cannot end with an older one written last."""
        with self._writing:
            save_settings(self._data_dir, self._current)

    def use(self, settings: AppSettings) -> None:
        """Use ``settings`` from now on without saving them (for this session only, as
        ``--model`` does), telling the bus what changed."""
        before, self._current = self._current, settings
        self._events.emit(SettingsChanged(before, settings))

    async def update(self, **changes: Any) -> AppSettings:
        """Save the current settings with ``changes`` made; returns the saved settings."""
        settings = self._current.model_copy(update=changes)
        await self.save(settings)
        return settings
