"""The budget meter in the header and the panel that asks what to do at a budget pause."""
