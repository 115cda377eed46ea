"""Run ``python -m llama_cpp.server`` with Parley's crash-safe model parameters.

Usage: ``python -m tests.providers.llama_server_main --model PATH --host 127.0.0.1 --port N``.
"""

from __future__ import annotations

import runpy

from app.providers._llama_load import model_params

if __name__ == "__main__":
    with model_params():
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
