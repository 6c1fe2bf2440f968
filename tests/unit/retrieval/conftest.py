"""Shared fixtures: the real e5 embedder (loaded once per process) and sample files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure.embeddings import Embedder, get_embedder
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
def e5_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """The default embedder (with its vector cache); every test shares one model."""
    emb = get_embedder(Settings(data_dir=tmp_path_factory.mktemp("e5")))
    assert emb.name == "multilingual-e5-small-q4"
    return emb
