"""Agents in the window: the sidebar's list, the editor, and the part that acts on them."""
