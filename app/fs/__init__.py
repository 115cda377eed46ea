"""File-system access shared by the file tools and the knowledge folders: opening a path one
component at a time without following a link (:mod:`app.fs.openat`). Imports only
:mod:`app.core`."""
