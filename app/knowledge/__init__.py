"""Knowledge folders' pure parts: cutting a document's text into passages that remember
where they came from, and fusing rankings. No SQLite, no files, no Qt."""

from app.knowledge.fusion import fuse_rankings
from app.knowledge.passages import Passage, cut_passages, document_passages

__all__ = ["Passage", "cut_passages", "document_passages", "fuse_rankings"]
