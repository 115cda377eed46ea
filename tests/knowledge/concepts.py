"""A small deterministic embedder for tests: each word counts towards the concept it names
(cat, kitten and feline are one), so texts sharing a meaning but no word are close."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.knowledge import normalise

CONCEPTS: tuple[frozenset[str], ...] = (
    frozenset({"cat", "cats", "kitten", "kittens", "feline", "purred", "purrs", "moggy"}),
    frozenset({"revenue", "earnings", "profit", "income", "sales", "turnover"}),
    frozenset({"router", "wifi", "modem", "network", "wireless"}),
    frozenset({"flour", "baking", "bake", "cake", "oven", "dough"}),
    frozenset({"tide", "tides", "sea", "harbour", "ocean", "coast"}),
)


class ConceptEmbedder:
    """An :class:`~app.knowledge.Embedder` over :data:`CONCEPTS` (plus one dimension for
    every other word), named ``name``; ``calls`` counts the texts it was given."""

    def __init__(self, name: str = "concepts-v1") -> None:
        self.name = name
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += len(texts)
        out = []
        for text in texts:
            vector = [0.0] * (len(CONCEPTS) + 1)
            for word in re.findall(r"\w+", text.lower()):
                hits = [n for n, words in enumerate(CONCEPTS) if word in words]
                vector[hits[0] if hits else len(CONCEPTS)] += 1.0 if hits else 0.05
            out.append(normalise(vector))
        return out


def write_notes(root: str | object) -> None:
    """Three plain-text files, one per subject, sharing no word with the tests' questions."""
    from pathlib import Path

    folder = Path(str(root))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pets.txt").write_text("Our cat purred on the warm windowsill all afternoon.\n")
    (folder / "money.txt").write_text("Quarterly revenue rose twelve percent in Europe.\n")
    (folder / "home.txt").write_text("Hold the button behind the router for ten seconds.\n")
