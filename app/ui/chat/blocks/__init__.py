"""Native renderers for the chat's media blocks: images, documents, audio, video and files."""
