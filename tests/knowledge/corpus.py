"""A generated knowledge folder: a PDF of several pages, a Word document, Markdown with
headings and code, code, plain text, hostile files and links that loop or lead outside."""

from __future__ import annotations

import os
from pathlib import Path

from tests.media import corpus as media

PDF_PAGES = [
    "Chapter one introduces the harbour and its lighthouse keepers.",
    "The tide tables for Tromso list the highest tide at noon in March.",
    "Appendix: the glacier walk starts at the blue hut after the bridge.",
]

MARKDOWN = """# Garden notes

Tomatoes like a sunny wall.

## Watering

Water the courgettes every evening in July; the pumpkins only twice a week.

```python
# Not a heading: water = 2
```

## Pests

Slugs eat lettuce seedlings; copper tape keeps them away.
"""

CODE = '''"""Invoice helpers."""


def invoice_total(lines):
    """Sum the amounts of an invoice's lines, VAT included."""
    return sum(line.amount * 1.25 for line in lines)
'''


def make_corpus(root: Path, *, hostile: bool = True, outside: Path | None = None) -> Path:
    """Fill ``root`` (created) with the knowledge corpus; returns it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "guide.pdf").write_bytes(media.pdf(PDF_PAGES, title="Travel guide"))
    (root / "letters").mkdir(exist_ok=True)
    (root / "letters" / "report.docx").write_bytes(
        media.word(["Quarterly report.", "The saffron harvest doubled in the autumn."])
    )
    (root / "garden.md").write_text(MARKDOWN, encoding="utf-8")
    (root / "billing.py").write_text(CODE, encoding="utf-8")
    (root / "notes.txt").write_text("Remember: the zeppelin museum opens at nine.\n")
    (root / "photo.jpg").write_bytes(media.image("JPEG", (32, 32)))  # not a document: ignored
    if hostile:
        (root / "broken.pdf").write_bytes(media.pdf(["cut short"])[:200])
        (root / "locked.pdf").write_bytes(media.pdf(["secret"], password="pw"))
        (root / "fake.docx").write_bytes(b"just text pretending to be Word\n" * 10)
        (root / "empty.txt").write_bytes(b"")
        os.mkfifo(root / "pipe.txt")
        os.symlink("loop-b", root / "loop-a")
        os.symlink("loop-a", root / "loop-b")
        os.symlink(".", root / "letters" / "again")  # a folder link back into itself
    if outside is not None:
        outside.mkdir(parents=True, exist_ok=True)
        (outside / "private.txt").write_text("the outside secret passphrase is walrus\n")
        os.symlink(outside, root / "escape")
        os.symlink(outside / "private.txt", root / "escape.txt")
    return root
