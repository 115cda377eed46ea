"""Attachments: ingesting files into the store's media for a message, reading stored media
back, and saying what a thread's model will not see."""
