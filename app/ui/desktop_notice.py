"""A desktop notification for something that happened while you were not looking: sent to
the freedesktop notification service on the session D-Bus (``Notify``, typed as the
specification asks), else shown by the tray icon, else not shown at all (no session bus and
no tray, as offscreen): it never fails and never holds the window up."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Literal

from PySide6.QtWidgets import QSystemTrayIcon

__all__ = ["notify_desktop", "notify_over_dbus"]

log = logging.getLogger(__name__)

Way = Literal["dbus", "tray", "none"]

_SERVICE = "org.freedesktop.Notifications"
_PATH = "/org/freedesktop/Notifications"
_ICON = "io.github.parley.Parley"
_TIMEOUT = 2.0
"""The most seconds a notification may take to be accepted."""


def notify_over_dbus(title: str, body: str) -> bool:
    """Send the notification on the session bus; whether the notification service took it
    (blocking: call it off the event loop)."""
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    try:
        from jeepney import DBusAddress, MessageType, new_method_call
        from jeepney.io.blocking import open_dbus_connection
    except ImportError:
        return False
    service = DBusAddress(_PATH, bus_name=_SERVICE, interface=_SERVICE)
    # app name, replaces id, icon, summary, body, actions, hints, timeout (-1: the server's)
    call = new_method_call(
        service, "Notify", "susssasa{sv}i", ("Parley", 0, _ICON, title, body, [], {}, -1)
    )
    with open_dbus_connection(bus="SESSION") as connection:
        reply = connection.send_and_get_reply(call, timeout=_TIMEOUT)
    return bool(reply.header.message_type == MessageType.method_return)


async def notify_desktop(title: str, body: str, tray: QSystemTrayIcon | None = None) -> Way:
    """Tell the desktop ``title`` and ``body``; how it was told (``"none"`` when it could
    not be)."""
    try:
        if await asyncio.to_thread(notify_over_dbus, title, body):
            return "dbus"
    except Exception:  # a broken bus is no reason to fail what was being done
        log.debug("no desktop notification over D-Bus", exc_info=True)
    if tray is not None and tray.isVisible() and QSystemTrayIcon.supportsMessages():
        tray.showMessage(title, body, QSystemTrayIcon.MessageIcon.Information)
        return "tray"
    return "none"
