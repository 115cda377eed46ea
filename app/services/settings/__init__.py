"""The user's settings: the file they live in, the store every service and settings page shares
(:class:`~app.services.settings.store.SettingsStore`), and what the settings pages change
(:class:`~app.services.settings.preferences.Preferences`)."""

from app.services.settings.file import FILE_NAME, AppSettings, load_settings, save_settings

__all__ = ["FILE_NAME", "AppSettings", "load_settings", "save_settings"]
