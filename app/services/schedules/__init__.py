"""Schedules: agents that run a prompt on their own at the times a person set."""
