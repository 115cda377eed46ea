"""The user's MCP servers: their file, what the window does to them, importing another app's
``mcpServers`` file, and what running servers offer to attach."""
