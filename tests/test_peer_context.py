"""The llama.cpp peer of the local-model bench stays inside its context window: a step that
would ask for more tokens than fit ends instead of stopping the whole bench with a traceback."""

from __future__ import annotations

import llama_cpp
import pytest

from app.providers._llama_load import model_params
from app.providers.bundled import bundled_model_path
from bench.bench_local_models import inside_context


def test_a_prompt_that_fills_the_context_ends_the_step_instead_of_failing() -> None:
    path = bundled_model_path()
    if path is None:
        pytest.skip("the bundled model is not installed")
    with model_params():
        llama = llama_cpp.Llama(model_path=str(path), n_ctx=256, verbose=False)
    try:
        prompt = "word " * 300
        with pytest.raises(ValueError, match=r"Requested tokens \(301\) exceed context window"):
            llama.create_completion(prompt=prompt, max_tokens=None)
        llama.reset()
        inside_context(llama, 16)
        out = llama.create_completion(prompt=prompt, max_tokens=None)
        assert out["choices"][0]["text"] == ""
        assert out["choices"][0]["finish_reason"] == "length"
        llama.reset()
        short = llama.create_completion(prompt="Hello", max_tokens=None, temperature=0)
        assert short["usage"]["completion_tokens"] <= 16
    finally:
        llama.close()
