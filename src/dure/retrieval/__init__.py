"""Korean hybrid search over collections of contracts and documents.

```python
from dure.retrieval import open_collection

col = open_collection("demo", settings)                 # store from settings.search.store
doc_id = col.add_document(Path("계약서.md"), kind="contract")
hits = col.search("하청 줘도 돼?", top_k=3, doc_id=doc_id)  # list[Hit]; hit.to_source()
contract = col.get_contract(doc_id)                     # dure.documents.Contract
```

Stores: `memory` (keyword only unless `dense=True`; not persisted),
`faiss` (persisted under `data_dir/collections/`), `pgvector` (Postgres; DSN from
`search.database_url`, else `database_url` when it is Postgres, or given). OpenSearch fits the
same `Store` interface but cannot be installed here, so it is not shipped.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from dure.embeddings import Embedder, EmbeddingError, get_embedder
from dure.errors import DureError
from dure.retrieval.collection import MAX_QUERY_CHARS, Collection, SearchMode
from dure.retrieval.stores.base import Store
from dure.retrieval.types import KINDS, Hit, IndexResult, Kind, Record, StoredDoc, check_name
from dure.settings import Settings, get_settings

__all__ = [
    "KINDS",
    "MAX_QUERY_CHARS",
    "STORES",
    "Collection",
    "CollectionInfo",
    "Embedder",
    "EmbeddingError",
    "Hit",
    "IndexResult",
    "Kind",
    "Record",
    "SearchMode",
    "Store",
    "StoreName",
    "store_name",
    "StoredDoc",
    "get_embedder",
    "has_documents",
    "list_collections",
    "open_collection",
    "shared_collection",
]

StoreName = Literal["memory", "faiss", "pgvector"]
STORES: tuple[StoreName, ...] = ("memory", "faiss", "pgvector")


def collections_dir(settings: Settings) -> Path:
    """Where FAISS collections live."""
    return settings.data_dir / "collections"


def postgres_dsn(settings: Settings, dsn: str | None = None) -> str:
    """The DSN for the pgvector store: given, `search.database_url`, or a Postgres `database_url`."""
    url = dsn or settings.search.database_url
    if not url and (settings.database_url or "").startswith(("postgres://", "postgresql")):
        url = settings.database_url
    if not url:
        raise DureError(
            "pgvector 저장소에는 Postgres 주소가 필요합니다: DURE_SEARCH__DATABASE_URL을 설정하세요."
        )
    return url.replace("postgresql+psycopg://", "postgresql://")


def store_name(store: str) -> StoreName:
    """`store` as a store name, or a clear error (for names typed by a user)."""
    for known in STORES:
        if store == known:
            return known
    raise DureError(f"알 수 없는 저장소입니다: {store!r} (memory, faiss, pgvector)")


def _backend(settings: Settings, store: str | None) -> StoreName:
    return store_name(store or settings.search.store)


def open_collection(
    name: str,
    settings: Settings | None = None,
    *,
    store: StoreName | None = None,
    dsn: str | None = None,
    embedder: Embedder | None = None,
    dense: bool | None = None,
) -> Collection:
    """Open (or create) the collection `name` in the configured or given store.

    `dense` defaults to True for FAISS and pgvector (or to how an existing collection was
    built) and False for memory (keyword only).
    `embedder` defaults to the configured one (`get_embedder`), loaded on first use.
    """
    settings = settings or get_settings()
    check_name(name)
    backend = _backend(settings, store)
    use_dense = dense if dense is not None else backend != "memory"
    st: Store
    if backend == "memory":
        from dure.retrieval.stores.memory import MemoryStore

        st = MemoryStore.named(name, dense=use_dense)
    elif backend == "faiss":
        from dure.retrieval.stores.faiss_store import FaissStore

        st = FaissStore(collections_dir(settings) / name, dense=dense)
        use_dense = st.dense
    else:
        from dure.retrieval.stores.pgvector_store import PgVectorStore

        st = PgVectorStore(postgres_dsn(settings, dsn), name)
    if dense is None and backend == "pgvector" and st.meta().get("embedder", "") is None:
        use_dense = False  # an existing keyword-only collection opens as it was built
    emb = embedder if embedder is not None else (lambda: get_embedder(settings))
    return Collection(name, settings, st, emb if use_dense and st.dense else None)


_shared: dict[tuple[str, ...], Collection] = {}
_shared_lock = threading.Lock()


def shared_collection(name: str, settings: Settings) -> Collection:
    """The collection `name` opened once per process and settings, so that what one part of the
    process adds or removes (an upload, a deletion) the agents reading it see at once."""
    key = (
        name,
        str(settings.data_dir),
        settings.search.model_dump_json(),
        settings.effective_database_url,
    )
    with _shared_lock:
        if key not in _shared:
            _shared[key] = open_collection(name, settings)
        return _shared[key]


@dataclass(frozen=True)
class CollectionInfo:
    """A collection in a listing."""

    name: str
    store: str
    documents: int
    records: int


def list_collections(
    settings: Settings | None = None, store: StoreName | None = None, dsn: str | None = None
) -> list[CollectionInfo]:
    """Collections in the configured (or given) store, by name."""
    settings = settings or get_settings()
    backend = _backend(settings, store)
    if backend == "memory":
        from dure.retrieval.stores.memory import memory_collections

        return [
            CollectionInfo(n, "memory", len(s.documents()), s.count())
            for n, s in sorted(memory_collections().items())
        ]
    if backend == "pgvector":
        from dure.retrieval.stores.pgvector_store import pg_collections

        return [
            CollectionInfo(n, "pgvector", d, r)
            for n, d, r in pg_collections(postgres_dsn(settings, dsn))
        ]
    from dure.retrieval.stores.faiss_store import FaissStore

    root = collections_dir(settings)
    out: list[CollectionInfo] = []
    for path in sorted(root.iterdir()) if root.is_dir() else []:
        if (path / "CURRENT").is_file():
            st = FaissStore(path)
            out.append(CollectionInfo(path.name, "faiss", len(st.documents()), st.count()))
    return out


def has_documents(name: str, settings: Settings | None = None) -> bool:
    """Whether the collection `name` exists and holds a document (nothing is created)."""
    settings = settings or get_settings()
    backend = _backend(settings, None)
    if backend == "faiss":  # a file check, not a load of every collection
        from dure.retrieval.stores.faiss_store import FaissStore

        return FaissStore.holds_documents(collections_dir(settings) / check_name(name))
    if backend == "pgvector":
        from dure.retrieval.stores.pgvector_store import pg_collections

        return any(d for _, d, _ in pg_collections(postgres_dsn(settings), check_name(name)))
    return any(c.name == name and c.documents for c in list_collections(settings))
