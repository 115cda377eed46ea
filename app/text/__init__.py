"""Text helpers shared by the window, the terminal and the services: hidden characters made
visible (:mod:`app.text.hidden_chars`) and sizes as people read them (:mod:`app.text.sizes`).
Imports nothing of Parley's."""
