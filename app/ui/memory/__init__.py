"""Memories in the window: the memories a reply used, shown from its chip, and how a memory's
scope, source and times read."""
