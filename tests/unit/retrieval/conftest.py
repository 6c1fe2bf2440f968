"""Shared fixtures: the real USE embedder (loaded once per test session) and sample files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure.retrieval.embedders import USEEmbedder, get_embedder
from dure.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
SAMPLES = {
    "software_dev": (EXAMPLES / "contracts" / "software_dev.md", "contract"),
    "lease": (EXAMPLES / "contracts" / "lease.md", "contract"),
    "employment": (EXAMPLES / "contracts" / "employment.md", "contract"),
    "software_dev_standard": (EXAMPLES / "standard" / "software_dev_standard.md", "standard"),
}


@pytest.fixture(scope="session")
def use_embedder() -> USEEmbedder:
    """The default embedder; `get_embedder` caches it, so every test shares one model."""
    emb = get_embedder(Settings())
    assert isinstance(emb, USEEmbedder)
    return emb
