"""Parley."""

from app.ui._none_guard import keep_none_alive

keep_none_alive()
