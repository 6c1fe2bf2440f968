"""The local model's prompt cache, bounded by what it really holds (imported with llama.cpp).

llama-cpp-python's `LlamaRAMCache` counts only each state's KV bytes against its capacity, but
`Llama.save_state` also copies the logits of the state's last n_batch (512) tokens: 512 ×
151,936 floats ≈ 311 MB a state for the default Qwen2.5 model, never counted. A turn of the
tasks agent keeps two or three states, so a benchmark of many turns grew from 3.9 to 7 GB with
the cache "at" 2 GB (issue 19). Those logits are never read again: a restored state is marked
for re-evaluation, and llama.cpp's `generate` replays at least its last token before sampling.
`PromptCache` keeps one row of them (what `load_state` broadcasts back) and counts every byte a
state holds, so `local.prompt_cache_mb` is the memory the cache takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from llama_cpp import LlamaRAMCache


def state_bytes(state: Any) -> int:
    """What one saved state holds: its KV bytes, its logits and its tokens."""
    return int(state.llama_state_size) + int(state.scores.nbytes) + int(state.input_ids.nbytes)


class PromptCache(LlamaRAMCache):
    """A RAM prompt cache whose states keep no logits and whose size counts everything."""

    @property
    def cache_size(self) -> int:
        return sum(state_bytes(s) for s in self.cache_state.values())

    def __setitem__(self, key: Sequence[int], value: Any) -> None:
        value.scores = np.zeros((1, value.scores.shape[-1]), dtype=np.single)
        super().__setitem__(key, value)
