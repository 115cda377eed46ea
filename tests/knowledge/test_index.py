"""Syncing a real folder into a real knowledge index: what is found, where, and what is
skipped and why; changes, deletions and renames without reading unchanged files again."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from app.knowledge import Passage
from app.services.knowledge.sync import SyncProgress, SyncResult, sync_folder
from app.store.knowledge import KnowledgeIndex
from app.store.knowledge._ops import SAVE_BATCH, add_passages, begin_file
from tests.knowledge.conftest import folder_record
from tests.knowledge.corpus import make_corpus


def _sync(index: KnowledgeIndex, root: Path) -> tuple[SyncResult, list[SyncProgress]]:
    seen: list[SyncProgress] = []
    result = sync_folder(index, folder_record(index, root), seen.append, threading.Event())
    return result, seen


def _ids(index: KnowledgeIndex, root: Path) -> dict[str, int]:
    return {rel: row.id for rel, row in index.file_rows(folder_record(index, root).id).items()}


def test_a_query_finds_the_right_file_and_page(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs")
    _sync(index, root)
    best = index.search("when is the highest tide in Tromso")[0]
    assert (best.rel, best.page) == ("guide.pdf", 2)
    assert "highest tide at noon" in best.text
    glacier = index.search("glacier walk")[0]
    assert (glacier.rel, glacier.page) == ("guide.pdf", 3)
    assert index.search("saffron harvest")[0].rel == "letters/report.docx"
    pests = index.search("slugs lettuce")[0]
    assert (pests.rel, pests.heading) == ("garden.md", "Garden notes › Pests")
    assert index.search("invoice total VAT")[0].rel == "billing.py"
    assert index.search("zeppelin museum")[0].rel == "notes.txt"


def test_hostile_files_are_listed_with_their_reason(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", outside=tmp_path / "elsewhere")
    result, progress = _sync(index, root)
    folder = index.folders()[0]
    reasons = {s.rel: s.reason for s in folder.skipped}
    assert "damaged" in reasons["broken.pdf"]
    assert "password-protected PDF" in reasons["locked.pdf"]
    assert "is not one" in reasons["fake.docx"]
    assert "empty" in reasons["empty.txt"]
    assert "named pipe" in reasons["pipe.txt"]
    assert "loops" in reasons["loop-a"] and "loops" in reasons["loop-b"]
    assert "outside the folder" in reasons["escape"]
    assert "outside the folder" in reasons["escape.txt"]
    assert "letters/again" not in reasons  # a link that stays inside is simply not followed
    assert folder.files == 5  # pdf, docx, md, py, txt; the photo is not a document
    assert index.search("walrus passphrase") == []
    assert progress[-1].files_done == progress[-1].files_total
    assert result.read == 5


def test_unchanged_files_are_not_read_again(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    _sync(index, root)
    before = _ids(index, root)
    result, progress = _sync(index, root)
    assert result == SyncResult(folders=(".", "letters"))
    assert _ids(index, root) == before
    assert progress[-1].files_total == 0


def test_changed_deleted_and_renamed_files(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    _sync(index, root)
    before = _ids(index, root)
    (root / "notes.txt").write_text("The aquarium feeds the penguins at three.\n")
    os.utime(root / "notes.txt", ns=(1, 10**18))
    (root / "billing.py").unlink()
    (root / "letters" / "report.docx").rename(root / "letters" / "autumn-report.docx")
    result, _ = _sync(index, root)
    assert (result.read, result.renamed, result.removed) == (1, 1, 1)
    after = _ids(index, root)
    # the renamed file keeps its row and passages: it was not read again
    assert after["letters/autumn-report.docx"] == before["letters/report.docx"]
    assert index.search("saffron")[0].rel == "letters/autumn-report.docx"
    assert index.search("penguins")[0].rel == "notes.txt"
    assert index.search("zeppelin") == []
    assert index.search("invoice") == []
    assert "billing.py" not in after


def test_a_cancelled_sync_keeps_what_it_finished(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    cancel = threading.Event()

    def report(progress: SyncProgress) -> None:
        if progress.files_done == 2:
            cancel.set()

    result = sync_folder(index, folder_record(index, root), report, cancel)
    assert result.cancelled
    assert len(index.file_rows(folder_record(index, root).id)) == 2
    again, _ = _sync(index, root)
    assert again.read == 3 and not again.cancelled


def test_a_search_with_query_syntax_is_read_as_words(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    _sync(index, root)
    assert index.search('"tide" AND (NEAR OR') != []
    assert index.search('*"(),:^') == []


def test_a_shortened_word_finds_the_longer_one_it_begins(index: KnowledgeIndex) -> None:
    folder_id, _ = index.add_folder("/notes")
    for n, text in enumerate(
        [
            "Administrative privileges are granted with sudo to a normal user.",
            "The parity of the disks is checked every night.",
            "Configuration files of removed packages stay until they are purged.",
        ]
    ):
        passage = Passage(text, 0, len(text), None, None)
        index.save_file(folder_id, f"note{n}.md", len(text), 1, f"{n}", [passage])
    admin = index.search("admin rights")
    assert [hit.rel for hit in admin] == ["note0.md"]
    assert 0 < admin[0].relevance < 1  # half of "admin", none of "rights"
    assert index.search("leftover config files")[0].rel == "note2.md"
    # a word the stemmer cut (paris: pari) does not find the longer words it begins (parity)
    assert index.search("paris") == []


def test_a_damaged_index_is_moved_aside_and_started_again(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "knowledge.db").write_bytes(b"not a database at all" * 100)
    index = KnowledgeIndex.open_data_dir(data)
    try:
        assert index.folders() == [] and index.problem is None
        assert (data / "knowledge.db.damaged").read_bytes().startswith(b"not a database")
    finally:
        index.close()


def test_a_data_folder_that_cannot_be_made_keeps_the_index_in_memory(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("in the way")
    index = KnowledgeIndex.open_data_dir(tmp_path / "a-file" / "data")
    try:
        assert index.problem is not None and "knowledge index" in index.problem
        folder_id, _ = index.add_folder("/somewhere")
        assert [f.id for f in index.folders()] == [folder_id]
    finally:
        index.close()


def _big_text(n: int) -> str:
    return "\n\n".join(
        f"Paragraph {i} of the logbook: lighthouse {i} was lit at dusk by its keeper, who "
        "walked the harbour wall with a copper lantern and wrote the tide tables by hand."
        for i in range(n)
    )


def test_a_big_file_is_saved_in_batches_and_found_whole(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "log.txt").write_text(_big_text(4000))
    result, _ = _sync(index, root)
    assert result.read == 1
    folder = index.folders()[0]
    assert (folder.files, folder.skipped) == (1, ())
    assert folder.passages > SAVE_BATCH  # more than one batch
    assert "lighthouse 3999 " in index.search("lighthouse 3999")[0].text
    (root / "log.txt").write_text(_big_text(3000))  # changed: the old passages are forgotten
    _sync(index, root)
    assert index.folders()[0].passages < folder.passages
    assert all("lighthouse 3999 " not in hit.text for hit in index.search("lighthouse 3999"))


def test_a_big_file_cut_off_between_batches_is_hidden_and_read_again(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "log.txt").write_text(_big_text(4000))
    record = folder_record(index, root)
    # what a kill between two batches leaves behind
    file_id = index.call(begin_file, record.id, "log.txt")
    index.call(add_passages, file_id, [Passage("the zebracrossing log", 0, 20)])
    assert index.search("zebracrossing") == []  # not searched
    assert index.folders()[0].skipped == ()  # nor listed as unreadable
    result, _ = _sync(index, root)
    assert result.read == 1
    assert index.search("zebracrossing") == []
    folder = index.folders()[0]
    assert folder.files == 1 and folder.passages == len(
        index.call(lambda c: c.execute("SELECT id FROM passages").fetchall())
    )
    assert "lighthouse 3999 " in index.search("lighthouse 3999")[0].text


def test_foreign_triggers_in_the_index_file_are_dropped_before_they_run(tmp_path: Path) -> None:
    path = tmp_path / "knowledge.db"
    KnowledgeIndex(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    own = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'passages_removed'").fetchone()
    # one makes every folder belong to every thread; one of Parley's own is rewritten; one
    # wears the name of a trigger older versions had, and would index each passage twice
    conn.execute(
        "CREATE TRIGGER share_all AFTER INSERT ON folders BEGIN "
        "UPDATE folders SET agent = NULL; END"
    )
    conn.execute("DROP TRIGGER passages_removed")
    conn.execute(
        "CREATE TRIGGER passages_removed AFTER DELETE ON passages BEGIN DELETE FROM folders; END"
    )
    conn.execute(
        "CREATE TRIGGER passages_added AFTER INSERT ON passages BEGIN "
        "INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text); END"
    )
    conn.close()

    index = KnowledgeIndex(path)
    try:
        folder_id, _ = index.add_folder("/home/me/papers", "Researcher")
        assert [(f.id, f.agent) for f in index.folders()] == [(folder_id, "Researcher")]
        index.save_file(folder_id, "a.md", 10, 1, "a", [Passage("The keeper's log", 0, 16)])
        index.save_file(folder_id, "a.md", 10, 2, "b", [Passage("The keeper's diary", 0, 18)])
        assert [(f.id, f.agent) for f in index.folders()] == [(folder_id, "Researcher")]
        assert [h.text for h in index.search("keeper", agent="Researcher")] == [
            "The keeper's diary"
        ]
        index.call(_check_fts)
    finally:
        index.close()
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        triggers = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        ).fetchall()
        again = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'passages_removed'"
        ).fetchone()
    finally:
        conn.close()
    assert [t[0] for t in triggers] == [
        "passage_vectors_removed",
        "passages_removed",
        "passages_retitled",
    ]
    assert again == own


def _check_fts(conn: sqlite3.Connection) -> None:
    """FTS5's own check that its index holds exactly the passages' words (rank 1: against
    the passages table); raises ``sqlite3.DatabaseError`` when it does not."""
    conn.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)")


def test_the_word_index_holds_each_passage_once_through_saves_changes_and_removals(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for n in range(3):
        (root / f"note{n}.md").write_text(f"# Note {n}\n\nThe keeper logs tide {n} at dawn.\n")
    filler = " The warden writes the weather down." * 26  # a passage of its own each
    big = "\n\n".join(
        f"Paragraph {n} about the lighthouse lamp.{filler}" for n in range(2 * SAVE_BATCH + 10)
    )
    (root / "big.md").write_text(big)  # saved in three batches
    _sync(index, root)
    assert index.folders()[0].passages == 3 + 2 * SAVE_BATCH + 10
    index.call(_check_fts)
    (root / "note1.md").write_text("# Note 1\n\nThe keeper logs a storm instead.\n")
    (root / "note2.md").unlink()
    (root / "big.md").write_text(big.replace("lamp", "lens"))
    _sync(index, root)
    index.call(_check_fts)
    texts = sorted(h.text for h in index.search("keeper logs", limit=10))
    assert texts == [
        "# Note 0\n\nThe keeper logs tide 0 at dawn.",
        "# Note 1\n\nThe keeper logs a storm instead.",
    ]
    assert index.search("lamp") == []
    assert "lens" in index.search("lighthouse lens 7")[0].text


def test_a_new_index_merges_its_word_index_16_segments_at_a_time(index: KnowledgeIndex) -> None:
    """FTS5's laziest merging (``automerge`` 16, not its default 4): a big folder is written
    a fifth quicker (``make bench``)."""
    merge = index.call(
        lambda c: c.execute("SELECT v FROM passages_fts_config WHERE k = 'automerge'").fetchone()
    )
    assert merge == (16,)


def test_each_file_is_announced_once_its_passages_are_saved(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for n in range(4):  # written while the next file is read: the order and the rows still hold
        (root / f"note{n}.md").write_text(f"# Note {n}\n\nThe keeper logs tide {n} at dawn.\n")
    record = folder_record(index, root)
    announced: list[tuple[str | None, bool]] = []

    def after_file(rel: str | None) -> None:
        rows = index.file_rows(record.id)
        announced.append((rel, rel is None or rows[rel].status == "indexed"))

    sync_folder(index, record, lambda p: None, threading.Event(), after_file)
    assert sorted(announced[:-1]) == [(f"note{n}.md", True) for n in range(4)]
    assert announced[-1] == (None, True)
    assert {hit.rel for hit in index.search("keeper tide dawn", limit=10)} == {
        f"note{n}.md" for n in range(4)
    }
