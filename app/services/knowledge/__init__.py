"""Knowledge folders: indexing them in the background, watching them, searching them, and
answers that cite the passages they were given (:class:`CitingModel`)."""

from app.services.knowledge.citing import CitingModel
from app.services.knowledge.service import KnowledgeService
from app.store.knowledge.records import FolderRecord, PassageHit, Skipped

__all__ = ["CitingModel", "FolderRecord", "KnowledgeService", "PassageHit", "Skipped"]
