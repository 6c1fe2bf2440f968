"""The embedded Postgres the integration tests stand on is real and has pgvector."""

import psycopg
import pytest


@pytest.mark.postgres
def test_fresh_database_has_pgvector(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
        dist = conn.execute("SELECT '[1,2,3]'::vector <-> '[1,2,4]'::vector").fetchone()[0]
    assert version.startswith("18")
    assert dist == pytest.approx(1.0)
