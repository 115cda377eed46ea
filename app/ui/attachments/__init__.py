"""Attaching files in the window: chips in ``attachmentBar``, drops, pastes, the file dialog."""
