"""Run by the kill test: index FOLDER into DATA_DIR's knowledge index, then exit."""

from __future__ import annotations

import sys
import threading

from app.services.knowledge.sync import sync_folder
from app.store.knowledge import KnowledgeIndex


def main() -> None:
    data_dir, folder = sys.argv[1], sys.argv[2]
    index = KnowledgeIndex.open_data_dir(data_dir)
    folder_id, _ = index.add_folder(folder)
    record = next(f for f in index.folders() if f.id == folder_id)
    sync_folder(index, record, lambda progress: None, threading.Event())
    index.close()


if __name__ == "__main__":
    main()
