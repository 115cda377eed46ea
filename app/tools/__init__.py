"""Parley."""
