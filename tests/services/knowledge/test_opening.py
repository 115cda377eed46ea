"""Which cited files open without a question: a document of an indexed kind inside a current
knowledge folder, found with every link followed; a script in Downloads, a link out of the
folder, a program inside it and a file of another kind are asked about, by their real path."""

from __future__ import annotations

from pathlib import Path

from app.services.knowledge.opening import cited_file


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    docs, downloads = tmp_path / "docs", tmp_path / "Downloads"
    docs.mkdir()
    downloads.mkdir()
    (docs / "guide.md").write_text("# Guide\n")
    (docs / "photo.png").write_bytes(b"\x89PNG")
    tool = docs / "tool.sh"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    script = downloads / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (docs / "manual.pdf").symlink_to(script)
    return docs, script


def test_only_a_plain_document_inside_a_folder_opens_unasked(tmp_path: Path) -> None:
    docs, script = _tree(tmp_path)
    folders = [str(docs)]
    guide = cited_file((docs / "guide.md").as_uri() + "#page=2", folders)
    assert guide is not None and guide.doubt is None
    assert guide.url == (docs / "guide.md").resolve().as_uri() + "#page=2"

    outside = cited_file(script.as_uri() + "#page=3", folders)
    assert outside is not None and outside.path == script.resolve()
    assert outside.doubt == (
        "It is not inside a knowledge folder. It is a program: opening it may run it."
    )

    linked = cited_file((docs / "manual.pdf").as_uri(), folders)
    assert linked is not None and linked.path == script.resolve()  # the link is followed
    assert linked.doubt is not None and "not inside a knowledge folder" in linked.doubt

    program = cited_file((docs / "tool.sh").as_uri(), folders)
    assert program is not None and program.doubt == "It is a program: opening it may run it."

    # a saved web page is indexed, but a browser would run its scripts: asked about
    (docs / "saved.html").write_text("<h1>Saved</h1><script>steal()</script>")
    page = cited_file((docs / "saved.html").as_uri(), folders)
    assert page is not None
    assert page.doubt == "It is a web page: your browser runs the scripts it may hold."

    picture = cited_file((docs / "photo.png").as_uri(), folders)
    assert picture is not None
    assert picture.doubt == "It is not a kind of file a knowledge folder indexes."

    folder = cited_file(docs.as_uri(), folders)
    assert folder is not None and folder.doubt is not None

    gone = cited_file((docs / "gone.md").as_uri(), folders)
    assert gone is not None and gone.missing

    dotted = cited_file(docs.as_uri() + "/../Downloads/run.sh", folders)
    assert dotted is not None and dotted.path == script.resolve() and dotted.doubt

    strange = cited_file((docs / "guide.md").as_uri() + "#page=1;rm", folders)
    assert strange is not None and strange.url == (docs / "guide.md").resolve().as_uri()

    assert cited_file("https://example.org/guide.md", folders) is None
    assert cited_file("file://server/share/guide.md", folders) is None
    assert cited_file("file:relative/guide.md", folders) is None


def test_without_folders_every_file_is_asked_about(tmp_path: Path) -> None:
    docs, _script = _tree(tmp_path)
    guide = cited_file((docs / "guide.md").as_uri(), [])
    assert guide is not None and guide.doubt == "It is not inside a knowledge folder."
