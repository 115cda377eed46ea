"""Network access shared by the web tools and the model downloads: the address guard
(:mod:`app.net.guard`, what kinds of address exist in :mod:`app.net.address_kinds`) and the
guarded HTTP exchange (:mod:`app.net.http`). Imports only :mod:`app.core`."""
