"""The settings dialog (``settingsDialog``, Ctrl+,) and its pages, one module a page."""
