"""Knowledge folders: indexing them in the background, watching them, searching them, and
answers that cite the passages they were given (:class:`CitingModel`)."""

from app.services.knowledge.citing import CitingModel
from app.services.knowledge.service import KnowledgeService

__all__ = ["CitingModel", "KnowledgeService"]
