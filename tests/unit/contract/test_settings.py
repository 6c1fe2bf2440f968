"""Seed 001's settings: max_iterations, enable_cache, persistence_mode, checkpoint_db_path."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dure.settings import Settings


def test_seed_defaults():
    s = Settings(_env_file=None)
    assert s.contract.max_iterations == 4
    assert s.contract.persistence_mode is None
    assert s.effective_database_url.startswith("sqlite:///")


def test_persistence_mode_maps_onto_the_checkpointer_url(tmp_path, monkeypatch):
    monkeypatch.setenv("DURE_CONTRACT__PERSISTENCE_MODE", "memory")
    assert Settings().effective_database_url == "memory"
    monkeypatch.setenv("DURE_CONTRACT__PERSISTENCE_MODE", "sqlite")
    monkeypatch.setenv("DURE_CONTRACT__CHECKPOINT_DB_PATH", str(tmp_path / "c.db"))
    assert Settings().effective_database_url == f"sqlite:///{tmp_path / 'c.db'}"
    # An explicit database_url wins.
    monkeypatch.setenv("DURE_DATABASE_URL", "memory")
    assert Settings().effective_database_url == "memory"


def test_postgres_mode_needs_a_url(monkeypatch):
    monkeypatch.setenv("DURE_CONTRACT__PERSISTENCE_MODE", "postgres")
    with pytest.raises(ValidationError):
        Settings()
    monkeypatch.setenv("DURE_CONTRACT__CHECKPOINT_DB_PATH", "postgresql://u@localhost/db")
    assert Settings().effective_database_url == "postgresql://u@localhost/db"
