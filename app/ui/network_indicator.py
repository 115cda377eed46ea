"""The header's network indicator (``networkIndicator``): "Local only", the number of
connections this session, or "Offline"; clicking it opens the ledger."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QToolButton, QWidget

from app.services.network import NetworkLedger

__all__ = ["NetworkIndicator"]


class NetworkIndicator(QToolButton):
    """Shows what :meth:`watch`'s ledger says, checked twice a second (two reads of counters,
    nothing that blocks)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("networkIndicator")
        self.setAutoRaise(True)
        self.setAccessibleName("Network connections")
        self._ledger: NetworkLedger | None = None
        self._shown: tuple[bool, int, int] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self.refresh)

    def watch(self, ledger: NetworkLedger) -> None:
        """Show ``ledger``'s session from now on."""
        self._ledger = ledger
        self.refresh()
        self._timer.start()

    def refresh(self) -> None:
        """Update the text if what it says changed."""
        if self._ledger is None:
            return
        sessions = self._ledger.session()
        remote = sum(1 for c in sessions if not c.local)
        state = (self._ledger.offline, self._ledger.session_count, remote)
        if state == self._shown:
            return
        self._shown = state
        offline, count, remote = state
        if offline:
            self.setText("Offline")
        elif remote == 0:
            self.setText("Local only")
        else:
            self.setText(f"{remote} connection{'' if remote == 1 else 's'}")
        noun = "connection" if count == 1 else "connections"
        self.setToolTip(
            f"{'Offline: connections to other computers are refused. ' if offline else ''}"
            f"This session: {count} {noun}, {remote} to other computers. Click for the ledger."
        )
