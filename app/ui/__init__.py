"""Parley."""

from app.startup import quiet_start
from app.ui._feature_scan import skip_source_scan
from app.ui._none_guard import keep_none_alive

quiet_start()  # before the window's first pydantic model
keep_none_alive()
skip_source_scan()
