"""The prebuilt agent: ``create_agent(model, tools, ...)``."""

from app.core.agent.factory import create_agent

__all__ = ["create_agent"]
