"""The local model's prompt cache holds what its capacity says: a saved state's logits (≈ 311 MB
a state for the default model, uncounted by llama-cpp-python) are cut to the one row
`Llama.load_state` broadcasts back, and every byte a state keeps counts against the capacity."""

from __future__ import annotations

import numpy as np
from llama_cpp import LlamaRAMCache
from llama_cpp.llama import LlamaState

from dure.llm.prompt_cache import PromptCache, state_bytes

VOCAB = 4096


def _state(tokens: int, kv_bytes: int = 1000) -> LlamaState:
    """A state as `Llama.save_state` makes it: logits of up to n_batch (512) tokens."""
    ids = np.arange(tokens, dtype=np.intc)
    scores = np.ones((min(tokens, 512), VOCAB), dtype=np.single)
    return LlamaState(ids, scores, tokens, b"\0" * kv_bytes, kv_bytes, 0)


def test_a_kept_state_holds_one_row_of_logits() -> None:
    cache = PromptCache(capacity_bytes=2**30)
    cache[list(range(700))] = _state(700)
    kept = cache[list(range(700))]
    assert kept.scores.shape == (1, VOCAB)
    assert cache.cache_size == 1000 + VOCAB * 4 + 700 * 4
    # what load_state does with it: the row broadcasts over the model's logits buffer
    live = np.full((512, VOCAB), 7.0, dtype=np.single)
    live[: kept.n_tokens, :] = kept.scores.copy()
    assert not live.any()


def test_the_capacity_counts_everything_a_state_holds() -> None:
    one = state_bytes(_state(600)) - (512 - 1) * VOCAB * 4  # as kept: one row of logits
    ours, theirs = PromptCache(capacity_bytes=3 * one), LlamaRAMCache(capacity_bytes=3 * one)
    for n in range(5):
        for cache in (ours, theirs):
            cache[[n, *range(1, 600)]] = _state(600)
    assert len(ours.cache_state) == 3 and ours.cache_size <= 3 * one
    # llama-cpp-python's own cache keeps all five, with 8 MB of logits each it never counted
    assert len(theirs.cache_state) == 5
    assert sum(s.scores.nbytes for s in theirs.cache_state.values()) == 5 * 512 * VOCAB * 4
    assert list(ours.cache_state)[0][0] == 2  # the oldest went first
