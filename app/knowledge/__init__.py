"""Knowledge folders' pure parts: cutting a document's text into passages that remember
where they came from, fusing rankings and the embedder seam. No SQLite, no files, no Qt."""

from app.knowledge.embedding import Embedder, normalise
from app.knowledge.fusion import fuse_rankings, fused_scores
from app.knowledge.passages import Passage, cut_passages, document_passages

__all__ = [
    "Embedder",
    "Passage",
    "cut_passages",
    "document_passages",
    "fuse_rankings",
    "fused_scores",
    "normalise",
]
