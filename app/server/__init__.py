"""Parley as a local server: ``parley serve`` answers OpenAI- and Anthropic-compatible
requests with the models Parley can reach, for clients holding a key made with ``parley
serve keys add``."""
