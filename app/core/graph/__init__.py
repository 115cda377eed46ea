"""The graph engine."""
