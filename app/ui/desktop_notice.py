"""A desktop notification for something that happened while you were not looking: sent to
the freedesktop notification service over the session D-Bus, else shown by the tray icon,
else not shown at all (no session bus and no tray, as offscreen): it never fails."""

from __future__ import annotations

import logging
from typing import Literal

from PySide6.QtWidgets import QSystemTrayIcon

__all__ = ["notify_desktop"]

log = logging.getLogger(__name__)

Way = Literal["dbus", "tray", "none"]

_SERVICE = "org.freedesktop.Notifications"
_PATH = "/org/freedesktop/Notifications"


def _over_dbus(title: str, body: str) -> bool:
    try:
        from PySide6.QtDBus import QDBus, QDBusConnection, QDBusInterface
    except ImportError:
        return False
    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    service = QDBusInterface(_SERVICE, _PATH, _SERVICE, bus)
    if not service.isValid():
        return False
    # app name, replaces id, icon, summary, body, actions, hints, timeout (-1: the server's)
    arguments: list[object] = ["Parley", 0, "io.github.parley.Parley", title, body, [], {}, -1]
    reply = service.callWithArgumentList(QDBus.CallMode.Block, "Notify", arguments)
    return not reply.errorName()


def notify_desktop(title: str, body: str, tray: QSystemTrayIcon | None = None) -> Way:
    """Tell the desktop ``title`` and ``body``; how it was told (``"none"`` when it could
    not be)."""
    try:
        if _over_dbus(title, body):
            return "dbus"
    except Exception:  # a broken bus is no reason to fail what was being done
        log.debug("no desktop notification over D-Bus", exc_info=True)
    if tray is not None and tray.isVisible() and QSystemTrayIcon.supportsMessages():
        tray.showMessage(title, body, QSystemTrayIcon.MessageIcon.Information)
        return "tray"
    return "none"
