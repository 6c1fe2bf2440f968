"""The Postgres + pgvector store: documents, records, vectors and the keyword side in SQL.

Several server workers can share it (nothing is held in process memory). Tables are shared by
all collections; each collection gets a partial HNSW index on its own rows, cast to its
dimension (pgvector's documented way to index vectors of different models in one column).
The keyword side is BM25 over the stored Kiwi morphemes, computed in SQL (`pg_bm25`).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dure.errors import DureError
from dure.retrieval.stores import pg_bm25
from dure.retrieval.stores.base import Store
from dure.retrieval.types import Kind, Record, StoredDoc

if TYPE_CHECKING:
    import psycopg

__all__ = ["PgVectorStore", "pg_collections"]

#: Records in one `add_many` from which the tables are vacuumed and analysed afterwards.
BULK = 5_000

_SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS dure_search_collections (
    name text PRIMARY KEY,
    meta jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS dure_search_documents (
    collection text NOT NULL REFERENCES dure_search_collections(name) ON DELETE CASCADE,
    doc_id text NOT NULL,
    seq bigserial,
    kind text NOT NULL,
    name text NOT NULL,
    title text NOT NULL,
    sha256 text NOT NULL,
    body text NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    records integer NOT NULL DEFAULT 0,
    PRIMARY KEY (collection, doc_id)
);
CREATE TABLE IF NOT EXISTS dure_search_records (
    collection text NOT NULL,
    id text NOT NULL,
    doc_id text NOT NULL,
    kind text NOT NULL,
    doc text NOT NULL,
    article_no text,
    article_title text,
    body text NOT NULL,
    position integer NOT NULL,
    tokens text NOT NULL,
    embedding vector,
    PRIMARY KEY (collection, id),
    FOREIGN KEY (collection, doc_id) REFERENCES dure_search_documents(collection, doc_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS dure_search_records_doc ON dure_search_records (collection, doc_id);
"""


def _connect(dsn: str) -> psycopg.Connection[tuple[Any, ...]]:
    import psycopg
    from pgvector.psycopg import register_vector

    try:
        conn = psycopg.connect(dsn, autocommit=True)
    except psycopg.OperationalError as e:
        raise DureError(f"Postgres에 연결할 수 없습니다: {str(e).splitlines()[0]}") from e
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    register_vector(conn)
    return conn


class PgVectorStore(Store):
    """One collection's rows in Postgres; vector search through a per-collection HNSW index."""

    backend: ClassVar[str] = "pgvector"
    dense = True

    def __init__(self, dsn: str, name: str) -> None:
        self.name = name
        self.dsn = dsn
        self._conn = _connect(dsn)
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(7301)")  # concurrent first runs
            self._conn.execute(_SCHEMA)
            self._conn.execute(pg_bm25.SCHEMA)
            self._conn.execute(
                "INSERT INTO dure_search_collections (name) VALUES (%s) ON CONFLICT DO NOTHING",
                (name,),
            )
        # pgvector ≥ 0.8: keep scanning the HNSW graph until enough rows pass the filter.
        try:
            self._conn.execute("SET hnsw.iterative_scan = relaxed_order")
        except Exception:  # older pgvector: filtered queries fall back to fewer results
            pass

    @property
    def _index_name(self) -> str:
        return "dure_hnsw_" + hashlib.sha1(self.name.encode()).hexdigest()[:16]

    def meta(self) -> dict[str, Any]:
        row = self._conn.execute(
            "SELECT meta FROM dure_search_collections WHERE name = %s", (self.name,)
        ).fetchone()
        return dict(row[0]) if row else {}

    def set_meta(self, meta: dict[str, Any]) -> None:
        self._conn.execute(
            "UPDATE dure_search_collections SET meta = %s::jsonb WHERE name = %s",
            (json.dumps(meta, ensure_ascii=False), self.name),
        )

    def _ensure_index(self) -> None:
        """The collection's HNSW index, built once after its first vectors arrive (faster than
        maintaining it row by row during a bulk load)."""
        dim = self.meta().get("dim")
        if not dim:
            return
        lit = self.name.replace("'", "''")
        self._conn.execute(
            f"CREATE INDEX IF NOT EXISTS {self._index_name} ON dure_search_records USING hnsw "
            f"((embedding::vector({int(dim)})) vector_ip_ops) WHERE collection = '{lit}'"
        )

    def replace_vectors(self, ids: list[str], vectors: np.ndarray, meta: dict[str, Any]) -> None:
        if len(ids) != len(vectors) or len(set(ids)) != self.count():
            raise ValueError("replace_vectors needs one vector for every record")
        vecs = np.asarray(vectors, dtype=np.float32)
        with self._conn.transaction():
            # The old index is cast to the old dimension: it goes, and is built again below.
            self._conn.execute(f"DROP INDEX IF EXISTS {self._index_name}")
            self._conn.execute(
                "CREATE TEMP TABLE dure_new_vectors (id text PRIMARY KEY, embedding vector)"
                " ON COMMIT DROP"
            )
            with (
                self._conn.cursor() as cur,
                cur.copy(
                    "COPY dure_new_vectors (id, embedding) FROM STDIN WITH (FORMAT BINARY)"
                ) as copy,
            ):
                copy.set_types(["text", "vector"])
                for rid, vec in zip(ids, vecs, strict=True):
                    copy.write_row((rid, vec))
            self._conn.execute(
                "UPDATE dure_search_records r SET embedding = n.embedding FROM dure_new_vectors n"
                " WHERE r.collection = %s AND r.id = n.id",
                (self.name,),
            )
            self.set_meta(meta)
        self._ensure_index()

    def _doc(self, row: tuple[Any, ...]) -> StoredDoc:
        doc_id, kind, name, title, sha, body, metadata, records = row
        return StoredDoc(doc_id, kind, name, title, sha, body, dict(metadata), records)

    def documents(self) -> list[StoredDoc]:
        # The listing leaves the bodies out: they can be large, and `document()` has them.
        rows = self._conn.execute(
            "SELECT doc_id, kind, name, title, sha256, '', metadata, records FROM dure_search_documents "
            "WHERE collection = %s ORDER BY seq",
            (self.name,),
        ).fetchall()
        return [self._doc(r) for r in rows]

    def document(self, doc_id: str) -> StoredDoc | None:
        row = self._conn.execute(
            "SELECT doc_id, kind, name, title, sha256, body, metadata, records FROM dure_search_documents "
            "WHERE collection = %s AND doc_id = %s",
            (self.name, doc_id),
        ).fetchone()
        return self._doc(row) if row else None

    def add(self, doc: StoredDoc, records: list[Record], vectors: np.ndarray | None) -> None:
        self.add_many([(doc, records, vectors)])

    def add_many(self, batch: list[tuple[StoredDoc, list[Record], np.ndarray | None]]) -> None:
        dim = self.meta().get("dim")
        for _, records, vectors in batch:
            if vectors is not None and len(vectors) != len(records):
                raise ValueError("one vector per record is needed")
            if vectors is not None and len(vectors) and dim and np.shape(vectors)[1] != dim:
                raise ValueError(f"vector dimension {np.shape(vectors)[1]} != {dim}")
        with self._conn.transaction():
            for doc, records, vectors in batch:
                self._insert(doc, records, vectors)
        self._ensure_index()
        if sum(len(records) for _, records, _ in batch) >= BULK:
            # After a bulk load the planner needs fresh statistics, and the visibility map
            # lets the impact index answer keyword queries without touching the table.
            self._conn.execute(
                "VACUUM (ANALYZE) dure_search_postings, dure_search_terms, dure_search_records"
            )

    def _insert(self, doc: StoredDoc, records: list[Record], vectors: np.ndarray | None) -> None:
        """Replace one document's rows (inside the caller's transaction)."""
        vecs = None if vectors is None else np.asarray(vectors, dtype=np.float32)
        doc.records = len(records)
        self._delete(doc.doc_id)
        self._conn.execute(
            "INSERT INTO dure_search_documents (collection, doc_id, kind, name, title, sha256, body,"
            " metadata, records) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)",
            (
                self.name,
                doc.doc_id,
                doc.kind,
                doc.name,
                doc.title,
                doc.sha256,
                doc.text,
                json.dumps(doc.metadata, ensure_ascii=False),
                doc.records,
            ),
        )
        with (
            self._conn.cursor() as cur,
            cur.copy(
                "COPY dure_search_records (collection, id, doc_id, kind, doc, article_no, article_title,"
                " body, position, tokens, embedding) FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            # Binary COPY sends the numpy vectors as they are (no text formatting).
            copy.set_types([*["text"] * 8, "int4", "text", "vector"])
            for i, r in enumerate(records):
                copy.write_row(
                    (
                        self.name,
                        r.id,
                        r.doc_id,
                        r.kind,
                        r.doc,
                        r.article_no,
                        r.article_title,
                        r.text,
                        r.position,
                        " ".join(r.tokens),
                        None if vecs is None else vecs[i],
                    )
                )
        pg_bm25.add_postings(self._conn, self.name, doc.doc_id, records)

    def _delete(self, doc_id: str) -> bool:
        pg_bm25.forget_postings(self._conn, self.name, doc_id)
        cur = self._conn.execute(
            "DELETE FROM dure_search_documents WHERE collection = %s AND doc_id = %s",
            (self.name, doc_id),
        )
        return cur.rowcount > 0

    def remove(self, doc_id: str) -> bool:
        with self._conn.transaction():
            return self._delete(doc_id)

    def records(self, ids: list[str]) -> list[Record]:
        if not ids:
            return []
        rows = self._conn.execute(
            "SELECT id, doc_id, kind, doc, article_no, article_title, body, position, tokens "
            "FROM dure_search_records WHERE collection = %s AND id = ANY(%s)",
            (self.name, ids),
        ).fetchall()
        by_id = {
            r[0]: Record(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8].split()) for r in rows
        }
        return [by_id[i] for i in ids if i in by_id]

    def doc_records(self, doc_id: str) -> list[Record]:
        rows = self._conn.execute(
            "SELECT id FROM dure_search_records WHERE collection = %s AND doc_id = %s ORDER BY position",
            (self.name, doc_id),
        ).fetchall()
        return self.records([r[0] for r in rows])

    def count(self) -> int:
        row = self._conn.execute(
            "SELECT count(*) FROM dure_search_records WHERE collection = %s", (self.name,)
        ).fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def _filter(kind: Kind | None, doc_id: str | None) -> tuple[str, list[str]]:
        sql = ""
        args: list[str] = []
        if kind is not None:
            sql += " AND kind = %s"
            args.append(kind)
        if doc_id is not None:
            sql += " AND doc_id = %s"
            args.append(doc_id)
        return sql, args

    def keyword_search(
        self, tokens: list[str], k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        return pg_bm25.bm25_search(self._conn, self.name, tokens, k, kind, doc_id)

    def vector_search(
        self, vector: np.ndarray, k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        meta = self.meta()
        dim = int(meta.get("dim") or len(vector))
        where, args = self._filter(kind, doc_id)
        cast = f"embedding::vector({dim})"
        rows = self._conn.execute(
            f"SELECT id, -({cast} <#> %s::vector({dim})) AS score FROM dure_search_records "
            f"WHERE collection = %s AND embedding IS NOT NULL{where} "
            f"ORDER BY {cast} <#> %s::vector({dim}) LIMIT %s",
            [_vector_literal(vector), self.name, *args, _vector_literal(vector), k],
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def drop(self) -> None:
        """Delete the whole collection (rows and its index)."""
        self._conn.execute(f"DROP INDEX IF EXISTS {self._index_name}")
        self._conn.execute("DELETE FROM dure_search_collections WHERE name = %s", (self.name,))

    def close(self) -> None:
        self._conn.close()


def _vector_literal(v: np.ndarray) -> str:
    """pgvector's text form; COPY and casts to vector(dim) both accept it."""
    return "[" + ",".join(f"{x:.7g}" for x in np.asarray(v, dtype=np.float32)) + "]"


def pg_collections(dsn: str, name: str | None = None) -> list[tuple[str, int, int]]:
    """(name, documents, records) for every collection in the database, or the one `name`."""
    conn = _connect(dsn)
    try:
        exists = conn.execute("SELECT to_regclass('dure_search_collections')").fetchone()
        if not exists or exists[0] is None:
            return []
        rows = conn.execute(
            "SELECT c.name, (SELECT count(*) FROM dure_search_documents d WHERE d.collection = c.name),"
            " (SELECT coalesce(sum(records), 0) FROM dure_search_documents d WHERE d.collection = c.name)"
            " FROM dure_search_collections c WHERE %(name)s::text IS NULL OR c.name = %(name)s"
            " ORDER BY c.name",
            {"name": name},
        ).fetchall()
        return [(r[0], int(r[1]), int(r[2])) for r in rows]
    finally:
        conn.close()
