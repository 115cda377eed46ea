"""The words so far while the user speaks: one quick pass of Whisper over what was heard,
for dictation's partial text (the final text is still
:func:`~app.services.voice.engine.transcribe_file`'s).

Whisper's encoder takes 30 seconds of sound, padded with silence; most of a pass over a short
recording goes into that silence. Here the encoder gets what was heard plus a second, and at
least :data:`MIN_WINDOW_S` (shorter windows make Whisper repeat itself or misjudge the
language), which is several times quicker. The language is detected from that same pass when
none is given, decoding is greedy with no timestamps and no fallback, and its length is capped
by the sound's. A recording too long for one window is transcribed as a whole, quickly too.
"""

from __future__ import annotations

import math
import os
from typing import Any

from app.services.voice.engine import RATE, Transcript, _whisper

__all__ = ["MIN_WINDOW_S", "recognise_so_far"]

FRAMES_PER_S = 100
"""Whisper's feature frames per second of sound."""
MIN_WINDOW_S = 10
"""The shortest window the encoder is given, in seconds."""
TAIL_S = 1
"""Silence after what was heard, in seconds, so its last word is not cut."""
WINDOW_S = 30
"""Whisper's own window: a recording longer than this (with its tail) is transcribed whole."""
TOKENS_PER_S = 8
"""At most this many tokens per second of sound (speech gives four or five): a pass that
starts repeating itself stops there."""
NO_SPEECH = 0.6
LOW_LOGPROB = -1.0
"""Whisper's own rule: text whose no-speech probability is above :data:`NO_SPEECH` and whose
average log-probability is below :data:`LOW_LOGPROB` is a guess at silence, not words."""


def recognise_so_far(
    pcm: bytes, model_dir: str | os.PathLike[str], language: str | None = None
) -> Transcript:
    """What ``pcm`` (16-bit mono at 16 kHz, as the microphone records it) says so far, with
    the Whisper model in ``model_dir`` (blocking)."""
    import numpy as np

    samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float32) / 32768.0
    duration = len(samples) / RATE
    whisper = _whisper(str(model_dir))
    with whisper.lock:
        if duration + TAIL_S > WINDOW_S:
            return _whole(whisper.model, samples, language, duration)
        return _one_window(whisper.model, samples, language, duration)


def _whole(model: Any, samples: Any, language: str | None, duration: float) -> Transcript:
    segments, info = model.transcribe(
        samples,
        language=language,
        vad_filter=True,
        beam_size=1,
        temperature=0.0,
        without_timestamps=True,
        condition_on_previous_text=False,
    )
    text = " ".join(s.text.strip() for s in segments).strip()
    return Transcript(text, info.language, float(info.language_probability), duration)


def _one_window(model: Any, samples: Any, language: str | None, duration: float) -> Transcript:
    from faster_whisper.audio import pad_or_trim
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    features = model.feature_extractor(samples)
    heard = features.shape[-1] - 1  # the extractor's padding adds a frame
    seconds = max(MIN_WINDOW_S, math.ceil(heard / FRAMES_PER_S) + TAIL_S)
    encoded = model.encode(pad_or_trim(features[:, :heard], seconds * FRAMES_PER_S))
    multilingual = bool(model.model.is_multilingual)
    probability = 1.0
    if language is None:
        language = "en"
        if multilingual:
            token, probability = model.model.detect_language(encoded)[0][0]
            language = str(token)[2:-2]
    tokenizer = Tokenizer(model.hf_tokenizer, multilingual, task="transcribe", language=language)
    prompt = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
    result = model.model.generate(
        encoded,
        [prompt],
        beam_size=1,
        max_length=len(prompt) + 4 + math.ceil(duration * TOKENS_PER_S),
        suppress_blank=True,
        suppress_tokens=get_suppressed_tokens(tokenizer, (-1,)),
        return_scores=True,
        return_no_speech_prob=True,
    )[0]
    if result.no_speech_prob > NO_SPEECH and result.scores[0] < LOW_LOGPROB:
        text = ""
    else:
        tokens = [t for t in result.sequences_ids[0] if t < tokenizer.eot]
        text = tokenizer.decode(tokens).strip()
    return Transcript(text, language, float(probability), duration)
