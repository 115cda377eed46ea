"""Models: building each spec once, the choices the picker offers, the catalogue of models to
download and the downloads themselves, and what models need from this machine."""
