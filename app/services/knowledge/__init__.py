"""Knowledge folders: indexing them in the background, watching them, searching them, and
answers that cite the passages they were given (:class:`PassagesHook`).

The names load with their first use, so the document reader's child process, which imports
:mod:`app.services.knowledge.reader` alone, does not load the agents and the store."""

from typing import TYPE_CHECKING

from app.core.lazy_names import lazy_names

if TYPE_CHECKING:
    from app.services.knowledge.passages import PassagesHook
    from app.services.knowledge.service import KnowledgeService
    from app.store.knowledge.records import FolderRecord, PassageHit, Skipped

__all__ = ["FolderRecord", "KnowledgeService", "PassageHit", "PassagesHook", "Skipped"]

__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        "app.services.knowledge.passages": ("PassagesHook",),
        "app.services.knowledge.service": ("KnowledgeService",),
        "app.store.knowledge.records": ("FolderRecord", "PassageHit", "Skipped"),
    },
)
