"""Knowledge folders: indexing them in the background, watching them, searching them, and
answers that cite the passages they were given (:class:`PassagesHook`)."""

from app.services.knowledge.passages import PassagesHook
from app.services.knowledge.service import KnowledgeService
from app.store.knowledge.records import FolderRecord, PassageHit, Skipped

__all__ = ["FolderRecord", "KnowledgeService", "PassageHit", "PassagesHook", "Skipped"]
