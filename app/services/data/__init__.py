"""The user's data as a whole: diagnostics and folders, export all and delete everything, and
backups of the thread database."""
