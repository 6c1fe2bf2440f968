"""BM25 in Postgres, the same scoring as the in-process index (bm25s, Lucene variant).

Postgres has no Korean analyser and `ts_rank` ignores term rarity, so the keyword side keeps
its own postings: one row per (term, record) with the term frequency and the record length,
a document-frequency table, and the collection's record and token counts. A query sums
`idf · tf / (tf + k1 · (1 − b + b · dl / avgdl))` over its terms in one SQL statement; on
large collections, terms found in more than a quarter of the records are skipped as in
`keyword.BM25Index` (small weight, long posting lists), and each term contributes its
`PER_TERM` highest-weighted postings (read from an impact-ordered index).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from dure.retrieval.keyword import COMMON_TERM_FRACTION, LARGE_INDEX
from dure.retrieval.types import Kind, Record

__all__ = ["SCHEMA", "add_postings", "bm25_search", "forget_postings"]

K1, B = 1.2, 0.75

SCHEMA = """
ALTER TABLE dure_search_collections ADD COLUMN IF NOT EXISTS n_records bigint NOT NULL DEFAULT 0;
ALTER TABLE dure_search_collections ADD COLUMN IF NOT EXISTS n_tokens bigint NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS dure_search_postings (
    collection text NOT NULL,
    term text NOT NULL,
    id text NOT NULL,
    doc_id text NOT NULL,
    kind text NOT NULL,
    tf integer NOT NULL,
    dl integer NOT NULL,
    impact real NOT NULL,
    PRIMARY KEY (collection, term, id),
    FOREIGN KEY (collection, doc_id)
        REFERENCES dure_search_documents(collection, doc_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS dure_search_postings_doc
    ON dure_search_postings (collection, doc_id, term);
CREATE INDEX IF NOT EXISTS dure_search_postings_impact
    ON dure_search_postings (collection, term, impact DESC) INCLUDE (id, tf, dl);
CREATE TABLE IF NOT EXISTS dure_search_terms (
    collection text NOT NULL REFERENCES dure_search_collections(name) ON DELETE CASCADE,
    term text NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (collection, term)
);
"""


def add_postings(conn: Any, collection: str, doc_id: str, records: list[Record]) -> None:
    """Postings, document frequencies and counts for one new document (in a transaction)."""
    n, total = conn.execute(
        "SELECT n_records, n_tokens FROM dure_search_collections WHERE name = %s", (collection,)
    ).fetchone()
    avgdl = max((total + sum(len(r.tokens) for r in records)) / max(n + len(records), 1), 1.0)
    with (
        conn.cursor() as cur,
        cur.copy(
            "COPY dure_search_postings (collection, term, id, doc_id, kind, tf, dl, impact) "
            "FROM STDIN WITH (FORMAT BINARY)"
        ) as copy,
    ):
        copy.set_types(["text", "text", "text", "text", "text", "int4", "int4", "float4"])
        for r in records:
            dl = len(r.tokens)
            norm = K1 * (1 - B + B * dl / avgdl)
            for term, tf in Counter(r.tokens).items():
                impact = tf / (tf + norm)  # the term's BM25 weight here, up to its idf
                copy.write_row((collection, term, r.id, r.doc_id, r.kind, tf, dl, impact))
    conn.execute(
        "INSERT INTO dure_search_terms (collection, term, df) SELECT collection, term, count(*) "
        "FROM dure_search_postings WHERE collection = %s AND doc_id = %s GROUP BY collection, term "
        "ON CONFLICT (collection, term) DO UPDATE SET df = dure_search_terms.df + excluded.df",
        (collection, doc_id),
    )
    conn.execute(
        "UPDATE dure_search_collections SET n_records = n_records + %s, n_tokens = n_tokens + %s "
        "WHERE name = %s",
        (len(records), sum(len(r.tokens) for r in records), collection),
    )


def forget_postings(conn: Any, collection: str, doc_id: str) -> None:
    """Take a document out of the frequencies and counts (its rows go with the document)."""
    conn.execute(
        "UPDATE dure_search_terms t SET df = t.df - x.c FROM (SELECT term, count(*) AS c "
        "FROM dure_search_postings WHERE collection = %s AND doc_id = %s GROUP BY term) x "
        "WHERE t.collection = %s AND t.term = x.term",
        (collection, doc_id, collection),
    )
    conn.execute(
        "UPDATE dure_search_collections c SET n_records = c.n_records - d.records, "
        "n_tokens = c.n_tokens - (SELECT coalesce(sum(tf), 0) FROM dure_search_postings "
        "WHERE collection = %s AND doc_id = %s) FROM dure_search_documents d "
        "WHERE c.name = %s AND d.collection = %s AND d.doc_id = %s",
        (collection, doc_id, collection, collection, doc_id),
    )


_QUERY = """
WITH s AS (
    SELECT n_records::float8 AS n, greatest(n_tokens::float8 / greatest(n_records, 1), 1) AS avgdl
    FROM dure_search_collections WHERE name = %(c)s
), t AS (
    SELECT term, df FROM dure_search_terms
    WHERE collection = %(c)s AND term = ANY(%(terms)s) AND df > 0
), keep AS (
    SELECT t.term, ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) AS idf FROM t, s
    WHERE s.n < %(large)s OR t.df <= %(frac)s * s.n
       OR NOT EXISTS (SELECT 1 FROM t AS r WHERE r.df <= %(frac)s * s.n)
)
SELECT p.id, sum(keep.idf * p.tf / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.dl / s.avgdl))) AS score
FROM keep CROSS JOIN s CROSS JOIN LATERAL (
    SELECT id, tf, dl FROM dure_search_postings p
    WHERE p.collection = %(c)s AND p.term = keep.term {filters}
    ORDER BY p.impact DESC LIMIT %(per_term)s
) p
GROUP BY p.id ORDER BY score DESC, p.id LIMIT %(k)s
"""
#: Postings read per query term (highest BM25 weight first). Scores stay exact; only on
#: collections where a term occurs in more records than this can a low-weight match be
#: missed — the impact-ordered pruning search engines use for long posting lists.
PER_TERM = 1_000


def bm25_search(
    conn: Any,
    collection: str,
    tokens: list[str],
    k: int,
    kind: Kind | None = None,
    doc_id: str | None = None,
) -> list[tuple[str, float]]:
    """(record id, BM25 score), best first."""
    terms = list(dict.fromkeys(t for t in tokens if t))
    if not terms:
        return []
    filters = ("AND p.kind = %(kind)s " if kind else "") + (
        "AND p.doc_id = %(doc)s" if doc_id else ""
    )
    params = {
        "c": collection,
        "terms": terms,
        "large": LARGE_INDEX,
        "frac": COMMON_TERM_FRACTION,
        "k1": K1,
        "b": B,
        "kind": kind,
        "doc": doc_id,
        "k": k,
        # Within one document every posting is read: the list is short and exact is cheap.
        "per_term": 1_000_000 if doc_id else max(PER_TERM, k),
    }
    rows = conn.execute(_QUERY.format(filters=filters), params).fetchall()
    return [(r[0], float(r[1])) for r in rows]
