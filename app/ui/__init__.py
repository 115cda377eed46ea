"""Parley."""

from app.ui._import_hook import lighten_import_hook
from app.ui._none_guard import keep_none_alive

keep_none_alive()
lighten_import_hook()
